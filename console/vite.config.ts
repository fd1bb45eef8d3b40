import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into console/dist at install time and served by searchdeck under /console.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': 'http://127.0.0.1:8764', '/studios': 'http://127.0.0.1:8764' } },
});
