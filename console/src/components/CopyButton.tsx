import { useState } from 'react';

/**
 * Copies `text` to the clipboard and says so beside the button for a moment. The button's own
 * text stays "Copy", so its accessible name (`label`, e.g. "Copy project ID") always holds it.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button
        type="button"
        aria-label={label}
        onClick={() => {
          void navigator.clipboard?.writeText(text).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          });
        }}
      >
        Copy
      </button>
      <span role="status">{copied ? ' Copied' : ''}</span>
    </>
  );
}
