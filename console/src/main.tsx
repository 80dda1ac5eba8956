import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { completeSignIn, loadSettings } from './auth.js';
import './console.css';

async function start(): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  try {
    const settings = await loadSettings();
    const session = await completeSignIn(settings).catch((error: unknown) => {
      root.render(<Problem message={error instanceof Error ? error.message : String(error)} />);
      throw error;
    });
    root.render(
      <StrictMode>
        <App settings={settings} initialSession={session} />
      </StrictMode>,
    );
  } catch (error) {
    root.render(<Problem message={error instanceof Error ? error.message : String(error)} />);
  }
}

function Problem({ message }: { message: string }) {
  return (
    <main className="centered">
      <h1>Sign-in failed</h1>
      <p role="alert">{message}</p>
      <p>
        <a href="/admin/">Start again</a>
      </p>
    </main>
  );
}

void start();
