import { defineConfig } from "vitest/config";

// Tauri expects a fixed dev-server port and must see Rust errors, so no screen clearing.
export default defineConfig({
  clearScreen: false,
  server: {
    port: 1420,
    strictPort: true,
    watch: { ignored: ["**/src-tauri/**", "**/target/**"] },
  },
  // Env vars with these prefixes are exposed to the UI (TAURI_ENV_* is set by the Tauri CLI).
  envPrefix: ["VITE_", "TAURI_ENV_"],
  // JSX through Vite's built-in esbuild (no React plugin needed).
  esbuild: { jsx: "automatic" },
  build: {
    // Linux and macOS webviews are WebKit (WebKitGTK 2.4x, Safari 16+); pdf.js needs ES2022.
    target: ["es2022", "safari16"],
    outDir: "dist",
    emptyOutDir: true,
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
  },
});
