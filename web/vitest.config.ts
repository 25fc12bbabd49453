import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test/setup.ts'],
    restoreMocks: true,
    testTimeout: 20_000,
    // Vitest's default is one worker less than the machine's cores: on CI's two cores, one
    // file at a time while the other core idles. The main process only hands files out.
    maxWorkers: '100%',
  },
});
