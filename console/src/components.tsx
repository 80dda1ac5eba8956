import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { describeError } from './api.js';

/**
 * An operator's action: a form whose submit asks for confirmation in a modal dialog, then runs
 * `run` and shows what came back (or the error envelope's message).
 */
export function ConfirmedAction({
  title,
  confirmText,
  children,
  run,
  label,
}: {
  title: string;
  /** What the dialog asks, e.g. "Ban @alice?" */
  confirmText: string;
  /** The form's fields. */
  children: ReactNode;
  run: () => Promise<string>;
  label: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const [busy, setBusy] = useState(false);
  const ask = (event: FormEvent) => {
    event.preventDefault();
    setResult(undefined);
    dialog.current?.showModal();
  };
  const confirm = async () => {
    dialog.current?.close();
    setBusy(true);
    try {
      setResult({ ok: true, text: await run() });
    } catch (error) {
      setResult({ ok: false, text: describeError(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="action" onSubmit={ask} aria-label={title}>
      <h3>{title}</h3>
      {children}
      <button type="submit" disabled={busy}>
        {label}
      </button>
      {result && (
        <p role="status" className={result.ok ? 'ok' : 'problem'}>
          {result.text}
        </p>
      )}
      <dialog ref={dialog} aria-label={`Confirm: ${title}`}>
        <p>{confirmText}</p>
        <button type="button" onClick={() => void confirm()}>
          Confirm
        </button>{' '}
        <button type="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
      </dialog>
    </form>
  );
}

export function Field({
  id,
  label,
  value,
  onChange,
  required = true,
  type = 'text',
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  type?: string;
}) {
  return (
    <p className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        required={required}
        autoComplete="off"
        onChange={(event) => onChange(event.target.value)}
      />
    </p>
  );
}
