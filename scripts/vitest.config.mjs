import { defineProject } from 'vitest/config';

// The repository's own checks: the docs' links (check-links.mjs) and the
// error page written from gateway-core's catalogue (errors-page.mjs).
export default defineProject({
  test: {
    name: 'scripts',
    include: ['*.test.mjs'],
  },
});
