import { defineProject } from 'vitest/config';

// The repository's own checks: the docs' links (check-links.mjs), the error
// page written from gateway-core's catalogue (errors-page.mjs) and the
// configuration page written from the gateway's key declarations (config-page.mjs),
// the generated block both pages share (generated-block.mjs), the import-graph
// checker the layers tests share (layers.mjs), and that the API reports name no
// built file's line (api-report-lines.mjs).
export default defineProject({
  test: {
    name: 'scripts',
    include: ['*.test.mjs'],
  },
});
