import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into web/dist, which the api role serves at / (src/web/static.ts); `npm run dev` in web/
// proxies the API to a running service on :8080.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', assetsDir: 'assets', sourcemap: false, chunkSizeWarningLimit: 400 },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/share': 'http://127.0.0.1:8080' } },
});
