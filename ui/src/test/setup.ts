import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach } from "vitest";

afterEach(async () => {
  // Order matters: unmount, let pending unlisten/cleanup promises settle, then drop the mocks.
  cleanup();
  await new Promise((resolve) => setTimeout(resolve, 0));
  clearMocks();
});
