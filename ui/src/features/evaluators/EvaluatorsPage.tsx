// Evaluators at /project/{projectId}/evaluators: the evaluators and rules (index), an evaluator
// with its versions, a new one, a rule with its runs and executions, a new rule
// (docs/evaluators.md). MEMBER and above write; a VIEWER reads.

import { Route, Routes } from "react-router";

import { EvaluatorView, NewEvaluator } from "./EvaluatorView";
import { Overview } from "./Overview";
import { NewRule, RuleView } from "./RuleView";
import "./evaluators.css";

export default function EvaluatorsPage() {
  return (
    <Routes>
      <Route index element={<Overview />} />
      <Route path="new" element={<NewEvaluator />} />
      <Route path="rules/new" element={<NewRule />} />
      <Route path="rules/:ruleId" element={<RuleView />} />
      <Route path=":evaluatorId" element={<EvaluatorView />} />
    </Routes>
  );
}
