// Project settings at /project/{projectId}/settings: General (name), API keys, Members, Score
// configs, Models and prices, LLM connections, Exports (features/exports), Data retention, and the
// Danger zone (delete the project after typing its name).
// What a section offers follows the person's role on the project (docs/identity.md): OWNER and ADMIN
// manage the project, its keys and members; MEMBER writes score configs and models; VIEWER reads.

import { useState } from "react";
import { useNavigate } from "react-router";

import { describeError } from "../../api/client";
import { useProject } from "../../app/project";
import { useSession } from "../../app/session";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { settings } from "./api";
import { ApiKeys } from "./ApiKeys";
import { ExportSettings } from "../exports/ExportSettings";
import { canManage, canWrite, PROJECT_NAME_MAX } from "./forms";
import { ProjectMembers } from "./Members";
import { LlmConnections } from "./LlmConnections";
import { Models } from "./Models";
import { Retention } from "./Retention";
import { ScoreConfigs } from "./ScoreConfigs";
import { Section, SettingsNav } from "./Section";
import "./settings.css";

const SECTIONS = [
  ["general", "General"],
  ["api-keys", "API keys"],
  ["members", "Members"],
  ["score-configs", "Score configs"],
  ["models", "Models and prices"],
  ["llm-connections", "LLM connections"],
  ["exports", "Exports"],
  ["retention", "Data retention"],
  ["danger", "Danger zone"],
] as const;

function General({ manage }: { manage: boolean }) {
  const { project, api } = useProject();
  const { refresh } = useSession();
  const loaded = useLoad((signal) => settings.project(api, signal), [api]);
  const [name, setName] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const shownName = name ?? loaded.data?.name ?? project.name;

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    const trimmed = shownName.trim();
    const bad = !trimmed ? "Enter a name" : null;
    setProblem(bad);
    if (bad) return;
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      const updated = await settings.updateProject(project.id, trimmed);
      loaded.set(updated);
      setName(null);
      setSaved(true);
      await refresh();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="settings-form" onSubmit={(e) => void save(e)} noValidate aria-label="General">
      <div className="settings-row">
        <TextField label="Project name" value={shownName} maxLength={PROJECT_NAME_MAX} readOnly={!manage} onChange={(e) => setName(e.target.value)} />
      </div>
      <p className="muted">
        Project id <code>{project.id}</code>
      </p>
      {problem && <InlineError>{problem}</InlineError>}
      {error !== undefined && <InlineError>{describeError(error)}</InlineError>}
      {manage && (
        <div className="settings-row">
          <Button type="submit" variant="primary" busy={busy}>
            Save
          </Button>
          {saved && (
            <span className="muted" role="status">
              Saved
            </span>
          )}
        </div>
      )}
    </form>
  );
}

function DangerZone() {
  const { project } = useProject();
  const { refresh } = useSession();
  const navigate = useNavigate();
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const remove = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await settings.deleteProject(project.id);
      await refresh();
      navigate("/", { replace: true });
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <div className="settings-danger">
      <p>
        Deleting <strong>{project.name}</strong> removes its traces, observations, scores, prompts, datasets and keys. It cannot be undone.
      </p>
      <TextField label={`Type ${project.name} to confirm`} value={typed} autoComplete="off" onChange={(e) => setTyped(e.target.value)} />
      <div>
        <Button variant="danger" disabled={typed !== project.name} busy={busy} onClick={() => void remove()}>
          Delete project
        </Button>
      </div>
      {error !== undefined && <InlineError>{describeError(error)}</InlineError>}
    </div>
  );
}

export default function ProjectSettingsPage() {
  const { project, organization, api } = useProject();
  const manage = canManage(project.role);
  const write = canWrite(project.role);
  return (
    <div className="page settings-page">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{organization.name}</p>
          <h1>Project settings</h1>
          <p className="muted">Your role on this project: {project.role}</p>
        </div>
      </header>
      <div className="settings-layout">
        <SettingsNav sections={SECTIONS.filter(([id]) => id !== "danger" || manage)} />
        <div className="settings-sections">
          <Section id="general" title="General">
            <General manage={manage} />
          </Section>
          <Section id="api-keys" title="API keys">
            <ApiKeys owner={{ kind: "project", id: project.id }} canManage={manage} />
          </Section>
          <Section id="members" title="Members">
            <ProjectMembers projectId={project.id} canRead={write} canManage={manage} />
          </Section>
          <Section id="score-configs" title="Score configs">
            <ScoreConfigs api={api} canWrite={write} />
          </Section>
          <Section id="models" title="Models and prices">
            <Models api={api} canWrite={write} />
          </Section>
          <Section id="llm-connections" title="LLM connections">
            <LlmConnections api={api} canManage={manage} />
          </Section>
          <Section id="exports" title="Exports">
            <ExportSettings manage={manage} />
          </Section>
          <Section id="retention" title="Data retention">
            <Retention manage={manage} />
          </Section>
          {manage && (
            <Section id="danger" title="Danger zone" danger>
              <DangerZone />
            </Section>
          )}
        </div>
      </div>
    </div>
  );
}
