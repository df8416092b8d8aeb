import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { describeError } from "../../api/client";
import { useSession } from "../../app/session";
import { Button } from "../../components/Button";
import { InlineError, Loading } from "../../components/States";
import { TextField } from "../../components/TextField";
import { AuthLayout } from "./AuthLayout";
import { safeNext } from "./next";
import { useAuthConfig } from "./useAuthConfig";

export function SignUpPage() {
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const config = useAuthConfig();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const next = safeNext(params.get("next"));

  if (config === null) {
    return (
      <AuthLayout title="Create your Loupe account">
        <Loading />
      </AuthLayout>
    );
  }
  if (!config.signUpEnabled) {
    return (
      <AuthLayout title="Sign-up is turned off">
        <p className="auth__text">This Loupe server does not take new accounts. Ask an administrator to add you.</p>
        <p className="auth__alternative">
          Have an account? <Link to="/sign-in">Sign in</Link>
        </p>
      </AuthLayout>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email.trim() || !password) {
      setError("Enter an email and a password.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const trimmed = name.trim();
      await session.signUp({ email: email.trim(), password, ...(trimmed ? { name: trimmed } : {}) });
      navigate(next ?? "/", { replace: true });
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  };

  return (
    <AuthLayout title="Create your Loupe account">
      <form className="form" onSubmit={submit} noValidate>
        <TextField label="Name" name="name" autoComplete="name" hint="Optional: shown to the people you work with." value={name} onChange={(e) => setName(e.target.value)} />
        <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          hint="8 to 128 characters."
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {error && <InlineError>{error}</InlineError>}
        <Button type="submit" variant="primary" busy={busy}>
          Sign up
        </Button>
      </form>
      <p className="auth__alternative">
        Have an account? <Link to={next ? `/sign-in?next=${encodeURIComponent(next)}` : "/sign-in"}>Sign in</Link>
      </p>
    </AuthLayout>
  );
}
