import { lowerDecorators } from '@tollgate/host-kit/vite';
import { defineConfig } from 'vitest/config';

// Vitest 5's TypeScript transform cannot lower the controllers' standard decorators yet.
export default defineConfig({ plugins: [lowerDecorators()] });
