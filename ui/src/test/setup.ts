import "@testing-library/jest-dom/vitest";
import i18n from "../i18n";
import { cleanup } from "@testing-library/react";
import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach } from "vitest";

afterEach(async () => {
  // Order matters: unmount, let pending unlisten/cleanup promises settle, then drop the mocks.
  cleanup();
  await new Promise((resolve) => setTimeout(resolve, 0));
  clearMocks();
});

// Tests read English unless they switch.
void i18n.changeLanguage("en");
