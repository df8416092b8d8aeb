// Where to go after signing in: the page a signed-out visit was sent away from (`?next=`), when it
// is a path of this app; never another site.

export function safeNext(next: string | null): string | null {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return null;
  if (next.startsWith("/sign-in") || next.startsWith("/sign-up")) return null;
  return next;
}

export function signInPath(from: string): string {
  return from === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(from)}`;
}
