import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, buildUrl } from '../api/client.ts';
import { api, sessionKey } from '../api/endpoints.ts';
import { ssoStartPath } from '../api/sso.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { safeNext } from './safe-next.ts';
import './SignIn.css';

export function SignInPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [search] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [ssoOrganization, setSsoOrganization] = useState('');
  const signIn = useMutation({
    mutationFn: () => api.signIn({ email, password }),
    onSuccess: (user) => {
      queryClient.clear();
      queryClient.setQueryData(sessionKey, user);
      void navigate(safeNext(search.get('next')), { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  // A navigation, not a form post: the page's form-action policy would stop the redirect to
  // the provider, and the provider's login page needs the whole window anyway.
  const startSso = (event: FormEvent) => {
    event.preventDefault();
    window.location.assign(
      buildUrl(ssoStartPath, { org: ssoOrganization.trim(), next: safeNext(search.get('next')) }),
    );
  };
  return (
    <main className="sign-in">
      <h1>Sign in to Stepdeck</h1>
      <form onSubmit={submit}>
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        <button type="submit" disabled={signIn.isPending}>
          Sign in
        </button>
      </form>
      {signIn.error instanceof ApiError && signIn.error.status === 401 ? (
        // Wrong credentials: the service's sentence says it all; a status code adds nothing.
        <p role="alert" className="error-box">
          {signIn.error.message}
        </p>
      ) : signIn.error ? (
        <ErrorMessage error={signIn.error} title="Could not sign in" />
      ) : null}
      <form className="sign-in-sso" onSubmit={startSso} aria-labelledby="sign-in-sso-heading">
        <h2 id="sign-in-sso-heading">Sign in with single sign-on</h2>
        <label>
          Organization or work address
          <input
            type="text"
            name="org"
            autoComplete="email"
            required
            value={ssoOrganization}
            onChange={(event) => setSsoOrganization(event.target.value)}
          />
        </label>
        <button type="submit">Continue with single sign-on</button>
      </form>
    </main>
  );
}
