import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { McpView_Serialize, SettingsView } from "../bindings";
import { MCP_CONFIG_PATH, mockBackend } from "../test/backend";
import { splitCommandLine } from "./McpSection";

const settings: SettingsView = { modelConfigured: true, dataDir: "/home/astro/.local/share/asterism", workspace: null, workspaceProblem: null, fields: [] };

const MCP: McpView_Serialize = {
  servers: [
    {
      name: "astro",
      endpoint: "asterism-mcp-server --stdio",
      enabled: true,
      state: "running",
      why: null,
      tools: [
        { name: "mcp__astro__cone_search", description: "Objects within a radius of a position" },
        { name: "mcp__astro__resolve", description: "A name to coordinates" },
      ],
    },
    { name: "broken", endpoint: "http://localhost:9/mcp", enabled: true, state: "failed", why: "connection refused (os error 111)", tools: [] },
    { name: "lazy", endpoint: "npx -y lazy-server", enabled: true, state: "idle", why: null, tools: [] },
    { name: "old", endpoint: "uvx old-server", enabled: false, state: "disabled", why: null, tools: [] },
  ],
  problem: null,
  configPath: MCP_CONFIG_PATH,
};

async function openMcp() {
  const user = userEvent.setup();
  render(<App />);
  await user.click(screen.getByTestId("nav-settings"));
  const section = await screen.findByTestId("mcp-section");
  return { user, section };
}

const rows = (section: HTMLElement) => within(section).queryAllByTestId("mcp-server");
const names = (section: HTMLElement) => rows(section).map((row) => within(row).getByTestId("mcp-name").textContent);
function row(section: HTMLElement, name: string) {
  const found = rows(section).find((r) => within(r).getByTestId("mcp-name").textContent === name);
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

describe("MCP servers in Settings", () => {
  it("starts loading, then lists each server with its endpoint, state, failure and tools, before About", async () => {
    const backend = mockBackend({ settings, mcp: MCP });
    let answer!: () => void;
    backend.delay("mcp_servers", new Promise<void>((resolve) => (answer = resolve)));
    const { user, section } = await openMcp();
    expect(within(section).getByTestId("mcp-loading")).toHaveTextContent("Starting the enabled servers…");
    expect(rows(section)).toHaveLength(0);
    answer();
    await waitFor(() => expect(rows(section)).toHaveLength(4));
    expect(within(section).queryByTestId("mcp-loading")).not.toBeInTheDocument();
    expect(backend.callsTo("mcp_servers")).toHaveLength(1);

    expect(section.querySelector("legend")).toHaveTextContent("MCP servers");
    expect(section.compareDocumentPosition(screen.getByTestId("about")) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(within(section).getByTestId("mcp-asks")).toHaveTextContent("The agent asks before each call of an MCP tool unless it is allowed, e.g. on the command line with --allow 'mcp__NAME__*'.");
    expect(within(section).getByTestId("mcp-asks").querySelector("code")).toHaveTextContent("--allow 'mcp__NAME__*'");
    const config = within(section).getByTestId("mcp-config");
    expect(config).toHaveTextContent(`Edited in ${MCP_CONFIG_PATH}; also asterism mcp add in a terminal.`);
    expect([...config.querySelectorAll("code")].map((code) => code.textContent)).toEqual([MCP_CONFIG_PATH, "asterism mcp add"]);
    expect(within(section).queryByTestId("mcp-problem")).not.toBeInTheDocument();

    expect(names(section)).toEqual(["astro", "broken", "lazy", "old"]);
    const state = (name: string) => within(row(section, name)).getByTestId("mcp-state");
    expect(state("astro")).toHaveTextContent("running");
    expect(state("astro")).toHaveClass("mcp-state-running");
    expect(state("astro").querySelector("svg")).not.toBeNull();
    expect(state("broken")).toHaveTextContent("failed");
    expect(state("lazy")).toHaveTextContent("not started");
    expect(state("old")).toHaveTextContent("disabled");

    const endpoint = within(row(section, "astro")).getByTestId("mcp-endpoint");
    expect(endpoint.tagName).toBe("CODE");
    expect(endpoint).toHaveTextContent("asterism-mcp-server --stdio");
    expect(within(row(section, "broken")).getByTestId("mcp-endpoint")).toHaveTextContent("http://localhost:9/mcp");

    const why = within(row(section, "broken")).getByTestId("mcp-why");
    expect(why).toHaveTextContent("Failed: connection refused (os error 111)");
    expect(why).toHaveClass("warn");
    expect(within(row(section, "astro")).queryByTestId("mcp-why")).not.toBeInTheDocument();

    const enabled = (name: string) => within(row(section, name)).getByTestId("mcp-enabled");
    expect(enabled("astro")).toBeChecked();
    expect(enabled("old")).not.toBeChecked();

    // Tools fold out on click, each with its description.
    const astro = row(section, "astro");
    const toggle = within(astro).getByTestId("mcp-tools-toggle");
    expect(toggle).toHaveTextContent("2 tools");
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(within(astro).queryByTestId("mcp-tool")).not.toBeInTheDocument();
    await user.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    const tools = within(astro).getAllByTestId("mcp-tool");
    expect(tools.map((tool) => tool.textContent)).toEqual([
      "mcp__astro__cone_search — Objects within a radius of a position",
      "mcp__astro__resolve — A name to coordinates",
    ]);
    await user.click(toggle);
    expect(within(astro).queryByTestId("mcp-tool")).not.toBeInTheDocument();
    expect(within(row(section, "broken")).queryByTestId("mcp-tools-toggle")).not.toBeInTheDocument();
  });

  it("adds a program over stdio with its arguments split at spaces, keeping double-quoted ones whole", async () => {
    const backend = mockBackend({ settings, mcp: MCP });
    const { user, section } = await openMcp();
    await waitFor(() => expect(rows(section)).toHaveLength(4));
    const submit = within(section).getByTestId("mcp-add-submit");
    expect(submit).toBeDisabled();

    // A name the agent could not call is refused before the app is asked.
    await user.type(within(section).getByTestId("mcp-add-name"), "my__fs");
    expect(within(section).getByTestId("mcp-add-name-help")).toHaveTextContent("Use 1–32 letters, digits, - or single _.");
    await user.type(within(section).getByTestId("mcp-add-command"), "npx server");
    expect(submit).toBeDisabled();
    await user.clear(within(section).getByTestId("mcp-add-name"));
    await user.type(within(section).getByTestId("mcp-add-name"), "fs");
    expect(submit).toBeEnabled();

    // An unclosed quote is pointed out and cannot be sent.
    const command = within(section).getByTestId("mcp-add-command");
    await user.clear(command);
    await user.type(command, 'npx "/home/astro/My Papers');
    expect(within(section).getByTestId("mcp-add-command-help")).toHaveTextContent("A double quote is not closed.");
    expect(submit).toBeDisabled();

    await user.clear(command);
    await user.type(command, '  npx -y @modelcontextprotocol/server-filesystem "/home/astro/My Papers" --label="two  words" ""  ');
    await user.click(submit);
    await waitFor(() => expect(backend.callsTo("mcp_add")).toHaveLength(1));
    expect(backend.callsTo("mcp_add")[0]!.args).toEqual({
      name: "fs",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/astro/My Papers", "--label=two  words", ""],
      url: null,
    });

    // The list the app answered replaces the one shown; the form is emptied.
    await waitFor(() => expect(names(section)).toEqual(["astro", "broken", "fs", "lazy", "old"]));
    expect(within(row(section, "fs")).getByTestId("mcp-endpoint")).toHaveTextContent("npx -y @modelcontextprotocol/server-filesystem /home/astro/My Papers");
    expect(within(row(section, "fs")).getByTestId("mcp-state")).toHaveTextContent("running");
    expect(await screen.findByTestId("info-toast")).toHaveTextContent("Added the MCP server fs.");
    expect(within(section).getByTestId("mcp-add-name")).toHaveValue("");
    expect(within(section).getByTestId("mcp-add-command")).toHaveValue("");
    expect(backend.callsTo("mcp_servers")).toHaveLength(1);
  });

  it("adds a server at a URL with no command", async () => {
    const backend = mockBackend({ settings });
    const { user, section } = await openMcp();
    expect(await within(section).findByTestId("mcp-empty")).toHaveTextContent("No MCP server is configured.");
    await user.type(within(section).getByTestId("mcp-add-name"), "vizier");
    expect(within(section).getByTestId("mcp-kind-stdio")).toBeChecked();
    await user.click(within(section).getByTestId("mcp-kind-url"));
    expect(within(section).queryByTestId("mcp-add-command")).not.toBeInTheDocument();
    await user.type(within(section).getByTestId("mcp-add-url"), " https://mcp.example.org/vizier ");
    await user.click(within(section).getByTestId("mcp-add-submit"));
    await waitFor(() => expect(backend.callsTo("mcp_add")).toHaveLength(1));
    expect(backend.callsTo("mcp_add")[0]!.args).toEqual({ name: "vizier", command: null, args: [], url: "https://mcp.example.org/vizier" });
    await waitFor(() => expect(names(section)).toEqual(["vizier"]));
    expect(within(row(section, "vizier")).getByTestId("mcp-endpoint")).toHaveTextContent("https://mcp.example.org/vizier");
    expect(within(section).queryByTestId("mcp-empty")).not.toBeInTheDocument();
  });

  it("shows a declined add as an error and keeps the list and the form", async () => {
    const backend = mockBackend({ settings, mcp: MCP, confirm: false });
    const { user, section } = await openMcp();
    await waitFor(() => expect(rows(section)).toHaveLength(4));
    await user.type(within(section).getByTestId("mcp-add-name"), "fs");
    await user.type(within(section).getByTestId("mcp-add-command"), "npx server-filesystem");
    await user.click(within(section).getByTestId("mcp-add-submit"));
    expect(await screen.findByTestId("error-toast")).toHaveTextContent("fs was not added.");
    expect(backend.callsTo("mcp_add")).toHaveLength(1);
    expect(names(section)).toEqual(["astro", "broken", "lazy", "old"]);
    expect(within(section).getByTestId("mcp-add-name")).toHaveValue("fs");
    expect(within(section).getByTestId("mcp-add-command")).toHaveValue("npx server-filesystem");
    expect(within(section).getByTestId("mcp-add-submit")).toBeEnabled();
    expect(screen.queryByTestId("info-toast")).not.toBeInTheDocument();
  });

  it("turns a server off and on, showing the state the app answers", async () => {
    const backend = mockBackend({ settings, mcp: MCP });
    const { user, section } = await openMcp();
    await waitFor(() => expect(rows(section)).toHaveLength(4));
    await user.click(within(row(section, "astro")).getByTestId("mcp-enabled"));
    await waitFor(() => expect(within(row(section, "astro")).getByTestId("mcp-state")).toHaveTextContent("disabled"));
    expect(backend.callsTo("mcp_set_enabled").map((call) => call.args)).toEqual([{ name: "astro", enabled: false }]);
    expect(within(row(section, "astro")).getByTestId("mcp-enabled")).not.toBeChecked();
    expect(within(row(section, "astro")).queryByTestId("mcp-tools-toggle")).not.toBeInTheDocument();

    await user.click(within(row(section, "old")).getByTestId("mcp-enabled"));
    await waitFor(() => expect(within(row(section, "old")).getByTestId("mcp-state")).toHaveTextContent("running"));
    expect(backend.callsTo("mcp_set_enabled").map((call) => call.args)).toEqual([
      { name: "astro", enabled: false },
      { name: "old", enabled: true },
    ]);
    expect(within(row(section, "old")).getByTestId("mcp-enabled")).toBeChecked();
    expect(within(row(section, "old")).getByTestId("mcp-no-tools")).toHaveTextContent("It offers no tools.");
  });

  it("removes a server only on the confirming second click", async () => {
    const backend = mockBackend({ settings, mcp: MCP });
    const { user, section } = await openMcp();
    await waitFor(() => expect(rows(section)).toHaveLength(4));

    await user.click(within(row(section, "broken")).getByTestId("mcp-remove"));
    expect(backend.callsTo("mcp_remove")).toHaveLength(0);
    expect(row(section, "broken")).toHaveTextContent("Remove broken?");
    await user.click(within(row(section, "broken")).getByTestId("mcp-remove-no"));
    expect(within(row(section, "broken")).queryByTestId("mcp-remove-yes")).not.toBeInTheDocument();
    expect(backend.callsTo("mcp_remove")).toHaveLength(0);

    await user.click(within(row(section, "broken")).getByTestId("mcp-remove"));
    // Only the server asked about shows the question.
    expect(within(row(section, "astro")).queryByTestId("mcp-remove-yes")).not.toBeInTheDocument();
    await user.click(within(row(section, "broken")).getByTestId("mcp-remove-yes"));
    await waitFor(() => expect(names(section)).toEqual(["astro", "lazy", "old"]));
    expect(backend.callsTo("mcp_remove").map((call) => call.args)).toEqual([{ name: "broken" }]);
    expect(await screen.findByTestId("info-toast")).toHaveTextContent("Removed the MCP server broken.");
  });

  it("warns when mcp.json cannot be read", async () => {
    const problem = "expected value at line 1 column 1";
    mockBackend({ settings, mcp: { servers: [], problem, configPath: MCP_CONFIG_PATH } });
    const { section } = await openMcp();
    const warning = await within(section).findByTestId("mcp-problem");
    expect(warning).toHaveTextContent(`mcp.json could not be read: ${problem}`);
    expect(warning).toHaveClass("warn");
    expect(warning.querySelector("svg")).not.toBeNull();
    expect(within(section).getByTestId("mcp-config")).toHaveTextContent(MCP_CONFIG_PATH);
    expect(within(section).getByTestId("mcp-empty")).toBeInTheDocument();
  });

  it("says why the servers could not be listed, and tries again", async () => {
    const backend = mockBackend({ settings, mcp: MCP });
    let fail!: () => void;
    backend.delay("mcp_servers", new Promise<void>((_, reject) => (fail = () => reject({ kind: "internal", message: "the hub is gone" }))));
    const { user, section } = await openMcp();
    fail();
    expect(await within(section).findByTestId("mcp-load-error")).toHaveTextContent("The servers could not be listed: the hub is gone");
    expect(await screen.findByTestId("error-toast")).toHaveTextContent("the hub is gone");
    await user.click(within(section).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(rows(section)).toHaveLength(4));
    expect(within(section).queryByTestId("mcp-load-error")).not.toBeInTheDocument();
  });

  it("speaks Chinese", async () => {
    mockBackend({ settings, mcp: MCP });
    const user = userEvent.setup();
    render(<App />);
    await user.click(screen.getByTestId("toggle-language"));
    await user.click(screen.getByTestId("nav-settings"));
    const section = await screen.findByTestId("mcp-section");
    await waitFor(() => expect(rows(section)).toHaveLength(4));
    expect(section.querySelector("legend")).toHaveTextContent("MCP 服务器");
    expect(within(section).getByTestId("mcp-asks")).toHaveTextContent("助手在每次调用 MCP 工具前都会询问");
    expect(within(section).getByTestId("mcp-asks")).toHaveTextContent("--allow 'mcp__NAME__*'");
    expect(within(section).getByTestId("mcp-config")).toHaveTextContent(`配置保存在 ${MCP_CONFIG_PATH}`);
    expect(within(row(section, "astro")).getByTestId("mcp-state")).toHaveTextContent("运行中");
    expect(within(row(section, "broken")).getByTestId("mcp-state")).toHaveTextContent("失败");
    expect(within(row(section, "broken")).getByTestId("mcp-why")).toHaveTextContent("失败原因：connection refused");
    expect(within(row(section, "lazy")).getByTestId("mcp-state")).toHaveTextContent("未启动");
    expect(within(row(section, "old")).getByTestId("mcp-state")).toHaveTextContent("已停用");
    expect(within(row(section, "astro")).getByTestId("mcp-tools-toggle")).toHaveTextContent("2 个工具");
    expect(within(row(section, "astro")).getByTestId("mcp-remove")).toHaveTextContent("移除");
    expect(within(section).getByTestId("mcp-add-submit")).toHaveTextContent("添加服务器");
    expect(within(section).getByTestId("mcp-kind-url").parentElement).toHaveTextContent("URL（HTTP）");
    await user.click(screen.getByTestId("toggle-language"));
  });
});

describe("splitCommandLine", () => {
  it("splits at whitespace and keeps double-quoted spans whole", () => {
    expect(splitCommandLine("uvx  mcp-server-fetch\t--timeout 30")).toEqual(["uvx", "mcp-server-fetch", "--timeout", "30"]);
    expect(splitCommandLine('python "/home/astro/My Tools/server.py" --name="a b"')).toEqual(["python", "/home/astro/My Tools/server.py", "--name=a b"]);
    expect(splitCommandLine('run "" x')).toEqual(["run", "", "x"]);
    expect(splitCommandLine("   ")).toEqual([]);
    expect(splitCommandLine('run "open')).toBeNull();
  });
});
