import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into web/dist, which the api role serves at / (src/web/static.ts); `npm run dev` in web/
// proxies the API to a running service on :8080.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 400,
    rolldownOptions: {
      output: {
        // Every page is its own chunk (lazy routes). React and TanStack, loaded by every page and
        // changed only on upgrades, get chunks of their own so a deploy of app code keeps them cached.
        codeSplitting: {
          groups: [
            { name: 'react', test: /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            {
              name: 'tanstack',
              test: new RegExp(
                String.raw`[\\/]node_modules[\\/]@tanstack[\\/]` +
                  String.raw`(history|store|react-store|router-core|react-router|query-core|react-query)[\\/]`,
              ),
            },
          ],
        },
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/share': 'http://127.0.0.1:8080' } },
});
