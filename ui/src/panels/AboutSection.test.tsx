import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { SettingsView } from "../bindings";
import { ABOUT, mockBackend } from "../test/backend";

const settings: SettingsView = { modelConfigured: true, dataDir: "/home/astro/.local/share/asterism", workspace: null, workspaceProblem: null, fields: [] };

async function openAbout() {
  const user = userEvent.setup();
  render(<App />);
  await user.click(screen.getByTestId("nav-settings"));
  return { user, about: await screen.findByTestId("about") };
}

const names = (about: HTMLElement) => within(about).queryAllByTestId("about-component").map((row) => within(row).getByRole("button").textContent);

describe("About", () => {
  it("shows the version and parts, counts and filters the notices, and shows a licence text on click", async () => {
    const backend = mockBackend({ settings });
    const { user, about } = await openAbout();
    expect(within(about).getByTestId("about-version")).toHaveTextContent("Asterism 0.1.0");
    expect(within(about).getByTestId("about-part-pdf")).toHaveTextContent("pdfium (/opt/asterism/libpdfium.so)");
    expect(within(about).getByTestId("about-part-pdf")).not.toHaveClass("warn");
    expect(within(about).getByTestId("about-part-embeddings")).toHaveTextContent("local:all-MiniLM-L6-v2-int8");
    expect(about).toHaveTextContent("Notices of bundled software");
    expect(within(about).getByTestId("about-counts")).toHaveTextContent("1 part · 2 Rust crates · 1 npm package");
    expect(names(about)).toEqual(["pdfium", "serde", "tokio", "react"]);
    const tokio = within(about).getAllByTestId("about-component")[2]!;
    expect(tokio).toHaveTextContent("1.48.0");
    expect(tokio).toHaveTextContent("MIT");
    expect(tokio).toHaveTextContent("https://tokio.rs");

    const filter = within(about).getByTestId("about-filter");
    await user.type(filter, "mit");
    expect(names(about)).toEqual(["serde", "tokio", "react"]);
    await user.clear(filter);
    await user.type(filter, "TOKIO");
    expect(names(about)).toEqual(["tokio"]);
    await user.clear(filter);
    await user.type(filter, "gpl");
    expect(names(about)).toEqual([]);
    expect(about).toHaveTextContent("No component matches.");
    await user.clear(filter);

    expect(within(about).queryByTestId("license-text")).not.toBeInTheDocument();
    await user.click(within(about).getByRole("button", { name: "tokio" }));
    const text = await within(about).findByTestId("license-text");
    expect(text.tagName).toBe("PRE");
    expect(text).toHaveTextContent("Copyright (c) Tokio Contributors");
    expect(backend.callsTo("license_text").map((call) => call.args)).toEqual([{ id: "mit-tokio" }]);

    // A component with two texts shows both; the one open before closes.
    await user.click(within(about).getByRole("button", { name: "serde" }));
    await waitFor(() => expect(within(about).getAllByTestId("license-text")).toHaveLength(2));
    const texts = within(about).getAllByTestId("license-text").map((pre) => pre.textContent);
    expect(texts[0]).toContain("Erick Tryzelaar");
    expect(texts[1]).toContain("Apache License");
    await user.click(within(about).getByRole("button", { name: "serde" }));
    expect(within(about).queryByTestId("license-text")).not.toBeInTheDocument();
  });

  it("warns when a part is the fallback", async () => {
    const parts = { pdfEngine: "pdf-extract, the slow fallback: libpdfium was not found", pdfFallback: true, embeddings: "none: no local model was found", embeddingsFallback: true };
    mockBackend({ settings, about: { ...ABOUT, parts } });
    const { about } = await openAbout();
    expect(within(about).getByTestId("about-part-pdf")).toHaveClass("warn");
    expect(within(about).getByTestId("about-part-pdf")).toHaveTextContent("Warning: pdf-extract, the slow fallback");
    expect(within(about).getByTestId("about-part-embeddings")).toHaveClass("warn");
  });

  it("says why the notices could not be read", async () => {
    const problem = "licenses.json was not found beside the executable or in ../lib/Asterism";
    mockBackend({ settings, about: { ...ABOUT, noticesPath: null, noticesProblem: problem, components: [] } });
    const { about } = await openAbout();
    expect(within(about).getByTestId("notices-problem")).toHaveTextContent(`The notices could not be read: ${problem}`);
    expect(within(about).getByTestId("notices-problem")).toHaveClass("warn");
    expect(within(about).queryByTestId("about-filter")).not.toBeInTheDocument();
    expect(within(about).getByTestId("about-version")).toHaveTextContent("Asterism 0.1.0");
  });

  it("shows a licence text that cannot be read as a problem", async () => {
    mockBackend({ settings, licenses: {} });
    const { user, about } = await openAbout();
    await user.click(within(about).getByRole("button", { name: "react" }));
    expect(await within(about).findByText("no licence text mit-react")).toHaveClass("warn");
  });

  it("speaks Chinese", async () => {
    mockBackend({ settings });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("toggle-language"));
    await user.click(screen.getByTestId("nav-settings"));
    const about = await screen.findByTestId("about");
    expect(about).toHaveTextContent("随附软件的声明");
    expect(within(about).getByTestId("about-counts")).toHaveTextContent("1 个组件 · 2 个 Rust crate · 1 个 npm 包");
    await user.click(screen.getByTestId("toggle-language"));
  });
});
