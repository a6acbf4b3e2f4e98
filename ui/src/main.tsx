import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./i18n";
import { applyTheme, savedTheme } from "./app/theme";

import "./styles.css";

// The theme before the first paint, so a dark system never flashes light.
applyTheme(savedTheme());

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
