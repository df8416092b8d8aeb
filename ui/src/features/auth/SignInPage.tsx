import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { describeError } from "../../api/client";
import { useSession } from "../../app/session";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { AuthLayout } from "./AuthLayout";
import { safeNext } from "./next";
import { useAuthConfig } from "./useAuthConfig";

export function SignInPage() {
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const config = useAuthConfig();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const next = safeNext(params.get("next"));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email.trim() || !password) {
      setError("Enter your email and password.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await session.signIn({ email: email.trim(), password });
      navigate(next ?? "/", { replace: true });
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  };

  return (
    <AuthLayout title="Sign in to Loupe">
      <form className="form" onSubmit={submit} noValidate>
        <TextField label="Email" type="email" name="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
        <TextField label="Password" type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        {error && <InlineError>{error}</InlineError>}
        <Button type="submit" variant="primary" busy={busy}>
          Sign in
        </Button>
      </form>
      {config?.signUpEnabled && (
        <p className="auth__alternative">
          No account yet? <Link to={next ? `/sign-up?next=${encodeURIComponent(next)}` : "/sign-up"}>Sign up</Link>
        </p>
      )}
    </AuthLayout>
  );
}
