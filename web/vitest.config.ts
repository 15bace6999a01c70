import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Component tests (Vitest + Testing Library in jsdom): `npm test` here, or `npm test` at the root.
export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    css: false,
  },
});
