// Prompts at /project/{projectId}/prompts: the folder list, a new prompt's editor at `new` (a name
// the server refuses, so no prompt's page can hide it), and a prompt's page at its name, `/`s
// included (`prompts/team/support/greet`).

import { Route, Routes } from "react-router";

import { NewPromptPage } from "./NewPromptPage";
import { PromptList } from "./PromptList";
import { PromptPage } from "./PromptPage";
import "./prompts.css";

export default function PromptsPage() {
  return (
    <Routes>
      <Route index element={<PromptList />} />
      <Route path="new" element={<NewPromptPage />} />
      <Route path="*" element={<PromptPage />} />
    </Routes>
  );
}
