import { passwordChangeBody } from '@stepdeck/contract';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api/endpoints.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import './AccountPassword.css';

const minLength = passwordChangeBody.shape.newPassword.minLength ?? 8;

/**
 * The signed-in user's own password: the one an admin handed over when adding them (shown
 * once), or the bootstrap's. The service asks for the current one again and ends the user's
 * other sessions; this one stays signed in.
 */
export function AccountPasswordPage() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const change = useMutation({
    mutationFn: () => api.changePassword({ currentPassword, newPassword }),
    onSuccess: () => {
      setCurrentPassword('');
      setNewPassword('');
      setRepeated('');
    },
  });
  const mismatch = repeated !== '' && repeated !== newPassword;
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    // An answer about what the fields held before is no longer about what they hold.
    if (change.error || change.isSuccess) change.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) change.mutate();
  };
  return (
    <section className="account-password">
      <h1>Change your password</h1>
      <form onSubmit={submit}>
        <label>
          Current password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={currentPassword}
            onChange={(event) => edit(setCurrentPassword)(event.target.value)}
          />
        </label>
        <label>
          New password
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={minLength}
            aria-describedby="new-password-rule"
            value={newPassword}
            onChange={(event) => edit(setNewPassword)(event.target.value)}
          />
        </label>
        <p id="new-password-rule" className="muted">
          At least {minLength} characters. Your other sessions end; this one stays signed in.
        </p>
        <label>
          Repeat the new password
          <input
            type="password"
            autoComplete="new-password"
            required
            aria-invalid={mismatch || undefined}
            aria-describedby={mismatch ? 'repeat-mismatch' : undefined}
            value={repeated}
            onChange={(event) => edit(setRepeated)(event.target.value)}
          />
        </label>
        {mismatch ? (
          <p id="repeat-mismatch" className="field-error">
            The two new passwords differ.
          </p>
        ) : null}
        <button type="submit" disabled={change.isPending || mismatch}>
          Change password
        </button>
      </form>
      {change.isSuccess ? (
        <p role="status" className="notice">
          Password changed. Your other sessions have ended.
        </p>
      ) : null}
      {change.error ? <ErrorMessage error={change.error} title="Password not changed" /> : null}
    </section>
  );
}
