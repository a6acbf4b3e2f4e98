import { ResearchAgentPanel } from "./components/ResearchAgentPanel";

export function App() {
  return <ResearchAgentPanel />;
}
