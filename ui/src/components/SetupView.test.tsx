import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { AppError, SettingsView } from "../bindings";
import { mockBackend } from "../test/backend";

const unconfigured = { modelConfigured: false, model: "" };

const settings: SettingsView = {
  modelConfigured: false,
  dataDir: "/home/astro/.local/share/asterism",
  workspace: null,
  workspaceProblem: null,
  fields: [],
};

const ollama = { name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", models: ["llama3.2:3b", "qwen3:8b", "mistral:7b"] };

/** The setup card once it is there, and the user. */
async function openSetup() {
  const user = userEvent.setup();
  render(<App />);
  return { user, card: await screen.findByTestId("setup-view") };
}

/** The card is gone and the model named in the top bar: the app status was read again. */
async function expectConfigured(model: string) {
  await waitFor(() => expect(screen.queryByTestId("setup-view")).not.toBeInTheDocument());
  expect(screen.getByTitle("Language model")).toHaveTextContent(model);
  expect(screen.getByTestId("question-input")).toBeEnabled();
}

describe("First-run setup", () => {
  it("appears without a model, looks for local servers, and keeps the hint and the Settings link", async () => {
    const backend = mockBackend({ status: unconfigured, settings });
    const { user, card } = await openSetup();
    await waitFor(() => expect(backend.callsTo("setup_local_servers")).toHaveLength(1));
    expect(within(card).queryByTestId("setup-local")).not.toBeInTheDocument();
    expect(card).toHaveTextContent("The library and replay of past sessions work without one");
    expect(screen.getByTestId("question-input")).toBeDisabled();
    await user.click(within(card).getByTestId("open-settings"));
    expect(await screen.findByTestId("settings-panel")).toBeInTheDocument();
  });

  it("does not appear when a model is configured", async () => {
    const backend = mockBackend();
    render(<App />);
    await waitFor(() => expect(screen.getByTitle("Language model")).toHaveTextContent("test-model"));
    expect(screen.queryByTestId("setup-view")).not.toBeInTheDocument();
    expect(screen.queryByTestId("config-notice")).not.toBeInTheDocument();
    expect(backend.callsTo("setup_local_servers")).toHaveLength(0);
  });

  it("uses a detected Ollama's model with its base URL and no key", async () => {
    const backend = mockBackend({ status: unconfigured, settings, localServers: [ollama] });
    const { user, card } = await openSetup();
    const local = await within(card).findByTestId("setup-local");
    expect(local).toHaveTextContent("Ollama is running on this computer");
    // The suggested model is chosen when the server has it.
    expect(within(local).getByTestId("setup-local-model")).toHaveValue("qwen3:8b");
    await user.selectOptions(within(local).getByTestId("setup-local-model"), "llama3.2:3b");
    await user.click(within(local).getByTestId("setup-local-use"));

    await waitFor(() => expect(backend.callsTo("settings_save")).toHaveLength(1));
    expect(backend.callsTo("settings_save")[0]!.args).toEqual({
      values: [
        { name: "LLM_BASE_URL", value: "http://127.0.0.1:11434/v1" },
        { name: "LLM_MODEL", value: "llama3.2:3b" },
        { name: "ENABLE_THINKING", value: "false" },
      ],
      secrets: [],
    });
    await expectConfigured("llama3.2:3b");
    expect(await screen.findByTestId("info-toast")).toHaveTextContent("llama3.2:3b");
  });

  it("says how to get a model when the local server has none", async () => {
    mockBackend({ status: unconfigured, settings, localServers: [{ ...ollama, models: [] }] });
    const { card } = await openSetup();
    expect(await within(card).findByTestId("setup-local-empty")).toHaveTextContent("ollama pull qwen3:8b");
    expect(within(card).queryByTestId("setup-local-use")).not.toBeInTheDocument();
  });

  it("tests a provider with the typed key, shows the verdict and offers the models it lists", async () => {
    const backend = mockBackend({
      status: unconfigured,
      settings,
      setupCheck: (args) => ({ url: args.baseUrl as string, ok: true, verdict: "answers (HTTP 200, 41 ms); offers deepseek-chat", models: ["deepseek-chat", "deepseek-reasoner"] }),
    });
    const { user, card } = await openSetup();
    expect(within(card).queryByTestId("setup-verdict")).not.toBeInTheDocument();
    await user.click(within(card).getByTestId("setup-preset-deepseek"));
    expect(within(card).getByTestId("setup-base-url")).toHaveValue("https://api.deepseek.com/v1");
    expect(within(card).getByTestId("setup-model")).toHaveValue("deepseek-chat");
    expect(within(card).getByTestId("setup-preset-deepseek")).toHaveAttribute("aria-pressed", "true");
    const key = within(card).getByTestId("setup-key");
    expect(key).toHaveAttribute("type", "password");
    await user.type(key, "sk-test-123");
    await user.click(within(card).getByTestId("setup-test"));

    const verdict = await within(card).findByTestId("setup-verdict");
    expect(verdict).toHaveTextContent("Works — https://api.deepseek.com/v1: answers (HTTP 200, 41 ms); offers deepseek-chat");
    expect(verdict).toHaveClass("ok");
    expect(verdict).not.toHaveClass("problem");
    expect(backend.callsTo("setup_check")[0]!.args).toEqual({ baseUrl: "https://api.deepseek.com/v1", key: "sk-test-123", model: "deepseek-chat" });

    const choice = within(card).getByTestId("setup-model-choice");
    expect(within(choice).getAllByRole("option").map((option) => option.textContent)).toEqual(["Choose a model…", "deepseek-chat", "deepseek-reasoner"]);
    await user.selectOptions(choice, "deepseek-reasoner");
    expect(within(card).getByTestId("setup-model")).toHaveValue("deepseek-reasoner");
    // Nothing is saved by a test.
    expect(backend.callsTo("settings_save")).toHaveLength(0);
  });

  it("shows a failing check as a problem, and a refused address as an error", async () => {
    let answer: "rejected" | "invalid" = "rejected";
    const backend = mockBackend({
      status: unconfigured,
      settings,
      setupCheck: (args) => {
        if (answer === "invalid") throw { kind: "invalidInput", message: "ftp://x: an endpoint is an http:// or https:// address" } satisfies AppError;
        return { url: args.baseUrl as string, ok: false, verdict: "key rejected (401)", models: [] };
      },
    });
    const { user, card } = await openSetup();
    await user.click(within(card).getByTestId("setup-preset-openai"));
    await user.click(within(card).getByTestId("setup-test"));
    const verdict = await within(card).findByTestId("setup-verdict");
    expect(verdict).toHaveTextContent("Problem — https://api.openai.com/v1: key rejected (401)");
    expect(verdict).toHaveClass("problem");
    expect(verdict).not.toHaveClass("ok");
    expect(within(card).queryByTestId("setup-model-choice")).not.toBeInTheDocument();
    // No key typed: none is sent (the app may use the saved one for its own endpoint).
    expect(backend.callsTo("setup_check")[0]!.args).toMatchObject({ key: null });

    answer = "invalid";
    const url = within(card).getByTestId("setup-base-url");
    await user.clear(url);
    await user.type(url, "ftp://x");
    expect(within(card).queryByTestId("setup-verdict")).not.toBeInTheDocument();
    await user.click(within(card).getByTestId("setup-test"));
    expect(await screen.findByTestId("error-toast")).toHaveTextContent("an endpoint is an http:// or https:// address");
    expect(within(card).queryByTestId("setup-verdict")).not.toBeInTheDocument();
  });

  it("saves the typed key as a secret, with thinking on for DashScope", async () => {
    const backend = mockBackend({ status: unconfigured, settings });
    const { user, card } = await openSetup();
    await user.click(within(card).getByTestId("setup-preset-dashscope"));
    await user.clear(within(card).getByTestId("setup-model"));
    await user.type(within(card).getByTestId("setup-model"), "qwen-plus");
    await user.type(within(card).getByTestId("setup-key"), "sk-dash-secret");
    await user.click(within(card).getByTestId("setup-save"));

    await waitFor(() => expect(backend.callsTo("settings_save")).toHaveLength(1));
    const saved = backend.callsTo("settings_save")[0]!.args;
    expect(saved.values).toEqual([
      { name: "LLM_BASE_URL", value: "https://dashscope.aliyuncs.com/compatible-mode/v1" },
      { name: "LLM_MODEL", value: "qwen-plus" },
      { name: "ENABLE_THINKING", value: "true" },
    ]);
    expect(saved.secrets).toEqual([{ name: "LLM_API_KEY", value: "sk-dash-secret" }]);
    // The key goes only as a secret.
    expect(JSON.stringify(saved.values)).not.toContain("sk-dash-secret");
    await expectConfigured("qwen-plus");
  });

  it("asks no key for a server on this computer and does not send one typed before", async () => {
    const backend = mockBackend({ status: unconfigured, settings });
    const { user, card } = await openSetup();
    await user.click(within(card).getByTestId("setup-preset-custom"));
    expect(within(card).getByTestId("setup-preset-custom")).toHaveAttribute("aria-pressed", "true");
    expect(within(card).getByTestId("setup-save")).toBeDisabled();
    await user.type(within(card).getByTestId("setup-base-url"), "https://llm.example.org/v1");
    await user.type(within(card).getByTestId("setup-key"), "sk-typed-first");
    await user.click(within(card).getByTestId("setup-preset-ollama"));
    expect(within(card).queryByTestId("setup-key")).not.toBeInTheDocument();
    expect(within(card).getByTestId("setup-no-key")).toHaveTextContent("No API key is needed");
    await user.click(within(card).getByTestId("setup-save"));
    await waitFor(() => expect(backend.callsTo("settings_save")).toHaveLength(1));
    expect(backend.callsTo("settings_save")[0]!.args).toEqual({
      values: [
        { name: "LLM_BASE_URL", value: "http://localhost:11434/v1" },
        { name: "LLM_MODEL", value: "qwen3:8b" },
        { name: "ENABLE_THINKING", value: "false" },
      ],
      secrets: [],
    });
  });

  it("shows why a save was refused and stays", async () => {
    const refusal = "Not saved: you did not confirm sending your API key to https://llm.example.org/v1.";
    mockBackend({
      status: unconfigured,
      settingsSave: () => {
        throw { kind: "invalidInput", message: refusal } satisfies AppError;
      },
    });
    const { user, card } = await openSetup();
    await user.type(within(card).getByTestId("setup-base-url"), "https://llm.example.org/v1");
    await user.type(within(card).getByTestId("setup-key"), "sk-x");
    await user.type(within(card).getByTestId("setup-model"), "llama-70b");
    await user.click(within(card).getByTestId("setup-save"));
    expect(await screen.findByTestId("error-toast")).toHaveTextContent(refusal);
    expect(screen.getByTestId("setup-view")).toBeInTheDocument();
    expect(within(card).getByTestId("setup-save")).toBeEnabled();
    expect(within(card).getByTestId("setup-model")).toHaveValue("llama-70b");
  });

  it("speaks Chinese", async () => {
    mockBackend({ status: unconfigured, settings, localServers: [ollama] });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("toggle-language"));
    const local = await screen.findByTestId("setup-local");
    expect(local).toHaveTextContent("本机正在运行 Ollama");
    expect(within(local).getByTestId("setup-local-use")).toHaveTextContent("使用它");
    expect(screen.getByTestId("setup-test")).toHaveTextContent("测试");
    await user.click(screen.getByTestId("toggle-language"));
  });
});
