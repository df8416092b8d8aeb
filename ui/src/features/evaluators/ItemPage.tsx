// The frame an evaluator's and a rule's pages share: the way back to the overview, the name, and
// for people who write (while not editing) the page's actions ending with Delete, which asks first
// and goes back to the overview once the server deleted it. A new one's page has the same head.

import type { ReactNode } from "react";
import { Link, useNavigate } from "react-router";

import { Button } from "../../components/Button";
import { RemovalDialog, useRemoval } from "../settings/Dialog";
import { useEvaluators } from "./access";
import { ErrorMessage } from "./common";

type Kind = "evaluator" | "rule";

function Head({ context, title, about, children }: { context?: string; title: string; about?: ReactNode; children?: ReactNode }) {
  const { href } = useEvaluators();
  return (
    <header className="page__header">
      <div>
        <p className="page__eyebrow">
          <Link to={href()}>Evaluators</Link>
          {context && ` · ${context}`}
        </p>
        <h1>{title}</h1>
        {about && <p className="muted">{about}</p>}
      </div>
      {children}
    </header>
  );
}

/** A new evaluator's or rule's page: its editor under the head. */
export function NewItemPage({ kind, children }: { kind: Kind; children: ReactNode }) {
  const { project } = useEvaluators();
  return (
    <div className="page ev">
      <Head context={project.name} title={`New ${kind}`} />
      <section className="ev-card">{children}</section>
    </div>
  );
}

interface ItemHeaderProps {
  kind: Kind;
  title: string;
  about?: ReactNode;
  /** Whether the actions show: the person writes and is not editing. */
  acting: boolean;
  /** The actions before Delete. */
  actions?: ReactNode;
  remove(): Promise<unknown>;
  /** What deleting it does, in the confirmation. */
  consequence: string;
}

export function ItemHeader({ kind, title, about, acting, actions, remove, consequence }: ItemHeaderProps) {
  const { href } = useEvaluators();
  const navigate = useNavigate();
  const removal = useRemoval<undefined>(remove, () => navigate(href()));
  return (
    <>
      <Head context={kind === "rule" ? "rule" : undefined} title={title} about={about}>
        {acting && (
          <div className="settings-row">
            {actions}
            <Button variant="danger" onClick={() => removal.ask(undefined)}>
              Delete
            </Button>
          </div>
        )}
      </Head>
      <RemovalDialog removal={removal} title={`Delete ${kind}?`} confirmLabel={`Delete ${kind}`} showError={(error) => <ErrorMessage error={error} />}>
        {() => <p>{consequence}</p>}
      </RemovalDialog>
    </>
  );
}
