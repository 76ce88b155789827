import { defineProject } from 'vitest/config';

// The bench's own logic that judges issue 19's targets (bench/lib/*.test.mjs); the bench itself runs with `pnpm bench`.
export default defineProject({
  test: {
    name: 'bench',
    include: ['lib/**/*.test.mjs'],
  },
});
