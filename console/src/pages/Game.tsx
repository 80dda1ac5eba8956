import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DefinitionSchema } from '../../../src/domain/catalog.js';
import { api, describeError, type Outputs } from '../api.js';
import { ConfirmedAction } from '../components.js';
import { diff, show } from '../diff.js';

type Version = Outputs['adminListDefinitions']['data']['definitions'][number];

/** Game: event types, quests and streaks with their versions; edit (validated, diffed) and retire. */
export function GamePage() {
  const list = useQuery({
    queryKey: ['adminListDefinitions'],
    queryFn: () => api.adminListDefinitions.query({ includeRetired: 'true' }),
  });
  const [selected, setSelected] = useState<string>();
  const [notice, setNotice] = useState<string>();
  if (list.isPending) return <p>Loading…</p>;
  if (list.isError) return <p role="alert">{describeError(list.error)}</p>;
  const definitions = list.data.data.definitions;
  const current = definitions.find((d) => `${d.kind}/${d.key}` === selected);
  return (
    <section aria-labelledby="game-title">
      <h1 id="game-title">Game</h1>
      <table>
        <caption>Event types, quests and streaks (newest version of each)</caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Key</th>
            <th scope="col">Title</th>
            <th scope="col">Version</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {definitions.map((d) => (
            <tr key={`${d.kind}/${d.key}`}>
              <td>{d.kind}</td>
              <td>{d.key}</td>
              <td>{d.definition.title}</td>
              <td>{d.version}</td>
              <td>{d.retired ? 'retired' : 'in force'}</td>
              <td>
                <button
                  type="button"
                  aria-label={`Edit ${d.kind}/${d.key}`}
                  onClick={() => setSelected(`${d.kind}/${d.key}`)}
                >
                  Edit
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {notice && (
        <p role="status" className="ok">
          {notice}
        </p>
      )}
      {current && (
        <Editor key={`${selected}@${current.version}`} current={current} onDone={setNotice} />
      )}
    </section>
  );
}

function Editor({ current, onDone }: { current: Version; onDone: (notice: string) => void }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState(() => JSON.stringify(current.definition, null, 2));
  const name = `${current.kind}/${current.key}`;
  let parsed: ReturnType<typeof DefinitionSchema.safeParse> | undefined;
  let syntax: string | undefined;
  try {
    parsed = DefinitionSchema.safeParse(JSON.parse(text));
  } catch (error) {
    syntax = error instanceof Error ? error.message : String(error);
  }
  const problems = syntax
    ? [`Not JSON: ${syntax}`]
    : parsed && !parsed.success
      ? parsed.error.issues.map(
          (issue) => `${issue.path.join('.') || '(definition)'}: ${issue.message}`,
        )
      : [];
  const proposed = parsed?.success ? parsed.data : undefined;
  const changes = proposed ? diff(current.definition, proposed) : [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['adminListDefinitions'] });

  return (
    <section aria-labelledby="editor-title" className="editor">
      <h2 id="editor-title">
        {name}, version {current.version}
        {current.retired ? ' (retired)' : ''}
      </h2>
      <label htmlFor="definition-text">Definition (JSON)</label>
      <textarea
        id="definition-text"
        rows={14}
        cols={70}
        spellCheck={false}
        value={text}
        onChange={(event) => setText(event.target.value)}
        aria-describedby="definition-check"
      />
      <div id="definition-check">
        {problems.length > 0 ? (
          <ul role="alert" className="problem">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        ) : (
          <p className="ok">Valid ({changes.length} field(s) changed).</p>
        )}
      </div>
      {changes.length > 0 && (
        <table data-table="diff">
          <caption>Against version {current.version}, the one in force</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">In force</th>
              <th scope="col">Proposed</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <tr key={change.path}>
                <td>{change.path}</td>
                <td>{show(change.before)}</td>
                <td>{show(change.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>
        What a change does: it applies from the next event on. Nothing already awarded is taken back
        or awarded again; a quest's tiers already reached keep their award, and new targets count
        from the progress stored.
      </p>
      {proposed && changes.length > 0 && (
        <ConfirmedAction
          title="Save the change"
          label="Save"
          confirmText={`Make version ${current.version + 1} of ${name}, changing ${changes
            .map((c) => c.path)
            .join(', ')}?`}
          run={async () => {
            const saved = await api.adminUpdateDefinition.mutate({
              kind: current.kind,
              key: current.key,
              expectedVersion: current.version,
              definition: proposed,
            } as Parameters<typeof api.adminUpdateDefinition.mutate>[0]);
            onDone(`Version ${saved.data.version} of ${name} is in force.`);
            await refresh();
            return 'Saved.';
          }}
        >
          {null}
        </ConfirmedAction>
      )}
      {!current.retired && (
        <ConfirmedAction
          title="Retire"
          label="Retire"
          confirmText={`Retire ${name}? It stops counting; what it awarded stays.`}
          run={async () => {
            const retired = await api.adminRetireDefinition.mutate({
              kind: current.kind,
              key: current.key,
              expectedVersion: current.version,
            });
            onDone(`${name} is retired (version ${retired.data.version}).`);
            await refresh();
            return 'Retired.';
          }}
        >
          {null}
        </ConfirmedAction>
      )}
    </section>
  );
}
