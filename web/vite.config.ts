import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import type { IncomingMessage } from 'node:http';

const backend = process.env.CHATFLOW_BACKEND_URL ?? 'http://localhost:8080';

const proxied = [
  '/auth',
  '/users',
  '/settings',
  '/setting',
  '/public-settings',
  '/companies',
  '/companySettings',
  '/companySettingOne',
  '/plans',
  '/version',
  '/api-docs',
  '/health',
  '/queue',
  '/forgetpassword',
  '/resetpasswords',
];

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      ...Object.fromEntries(
        proxied.map((path) => [
          path,
          {
            target: backend,
            changeOrigin: true,
            // A browser navigation to a client route such as /users or /settings gets the SPA.
            bypass: (req: IncomingMessage) =>
              req.method === 'GET' && req.headers.accept?.includes('text/html') ? '/index.html' : undefined,
          },
        ]),
      ),
      '/socket.io': { target: backend, ws: true, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: `cargo xtask budget` reads the entry and its static imports from it.
    manifest: true,
    chunkSizeWarningLimit: 700,
  },
});
