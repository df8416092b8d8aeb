/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// `npm run dev` serves the UI with hot reload on :5173 and forwards the API to a running web
// (`just run`, or LOUPE_API=http://host:port).
const api = process.env.LOUPE_API ?? "http://127.0.0.1:3000";

export default defineConfig({
  plugins: [react()],
  build: {
    target: "es2022",
    // Everything under assets/ is named by its content hash: web caches it for a year.
    assetsDir: "assets",
    sourcemap: false,
  },
  server: {
    proxy: { "/api": { target: api, changeOrigin: false } },
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
    css: false,
  },
});
