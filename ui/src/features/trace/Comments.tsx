// The comments on an observation (on the root, its trace's too, which is where a comment on the
// root goes): read by everyone with access, added by MEMBER and above, edited and deleted by their
// author. Comments are stored at once, so the list is simply read again after a change.

import { useState, type FormEvent } from "react";

import { describeError } from "../../api/client";
import type { Comment, ObservationDetail, TraceApi } from "../../api/trace";
import { Button } from "../../components/Button";
import { ErrorState, InlineError } from "../../components/States";
import { Markdown } from "../../components/value/Markdown";
import { authorName, DeleteButton, type People } from "./Scores";
import { useLoad } from "./useLoad";

const MAX_CHARS = 5000;

interface CommentsProps {
  api: TraceApi;
  detail: ObservationDetail;
  people: People;
  canWrite: boolean;
}

export function Comments({ api, detail, people, canWrite }: CommentsProps) {
  // Listed by observation: on a root the server adds its trace's comments.
  const [list, reload] = useLoad(() => api.comments("OBSERVATION", detail.id), [api, detail.id]);
  const [editing, setEditing] = useState<string | null>(null);
  const comments: Comment[] = list.data?.data ?? [];
  return (
    <section className="detail-section" aria-label="Comments">
      <h3 className="section-title">Comments</h3>
      {list.status === "error" && <ErrorState error={list.error} title="Comments could not be loaded" onRetry={() => void reload()} />}
      {list.status === "loading" && list.data === undefined ? (
        <p className="muted">Loading comments…</p>
      ) : comments.length === 0 ? (
        <p className="muted">No comments yet.</p>
      ) : (
        <ul className="comment-list">
          {comments.map((comment) => {
            const own = canWrite && comment.authorUserId === people.me;
            return (
              <li key={comment.id} className="comment-list__item">
                <div className="comment-list__meta muted">
                  <strong>{authorName(people, comment.authorUserId)}</strong> · {new Date(comment.createdAt).toLocaleString()}
                  {comment.updatedAt !== comment.createdAt && " · edited"}
                  {comment.objectType === "TRACE" && !detail.isRoot ? " · on the trace" : ""}
                </div>
                {editing === comment.id ? (
                  <CommentForm
                    initial={comment.content}
                    label="Edit comment"
                    submitLabel="Save comment"
                    onCancel={() => setEditing(null)}
                    onSubmit={async (content) => {
                      await api.updateComment(comment.id, content);
                      setEditing(null);
                      await reload();
                    }}
                  />
                ) : (
                  <>
                    <Markdown text={comment.content} />
                    {own && (
                      <span className="comment-list__actions">
                        <Button size="sm" variant="ghost" onClick={() => setEditing(comment.id)} aria-label="Edit comment">
                          Edit
                        </Button>
                        <DeleteButton
                          label="Delete comment"
                          onDelete={async () => {
                            await api.deleteComment(comment.id);
                            await reload();
                          }}
                        />
                      </span>
                    )}
                  </>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {canWrite && (
        <CommentForm
          label="Add a comment"
          submitLabel="Add comment"
          onSubmit={async (content) => {
            if (detail.isRoot) await api.createComment("TRACE", detail.traceId, content);
            else await api.createComment("OBSERVATION", detail.id, content);
            await reload();
          }}
        />
      )}
    </section>
  );
}

interface CommentFormProps {
  initial?: string;
  label: string;
  submitLabel: string;
  onSubmit(content: string): Promise<void>;
  onCancel?(): void;
}

function CommentForm({ initial = "", label, submitLabel, onSubmit, onCancel }: CommentFormProps) {
  const [content, setContent] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!content.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit(content.trim());
      if (!onCancel) setContent("");
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="comment-form" aria-label={label} onSubmit={(event) => void submit(event)}>
      <textarea
        className="field__input comment-form__text"
        aria-label={label}
        placeholder="Write a comment (markdown)"
        maxLength={MAX_CHARS}
        rows={3}
        value={content}
        onChange={(event) => setContent(event.target.value)}
      />
      <div className="comment-form__actions">
        <Button type="submit" size="sm" variant="primary" busy={busy} disabled={!content.trim()}>
          {submitLabel}
        </Button>
        {onCancel && (
          <Button size="sm" variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        )}
        <span className="muted comment-form__count">
          {content.length.toLocaleString()} / {MAX_CHARS.toLocaleString()}
        </span>
      </div>
      {error !== null && <InlineError>{describeError(error)}</InlineError>}
    </form>
  );
}
