import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, describeError } from '../api.js';

/** Fans: find one by handle, subject or id. */
export function FansPage() {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const found = useQuery({
    queryKey: ['adminFindFans', query],
    queryFn: () => api.adminFindFans.query({ query }),
    enabled: query !== '',
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setQuery(text.trim());
  };
  return (
    <section aria-labelledby="fans-title">
      <h1 id="fans-title">Fans</h1>
      <form role="search" onSubmit={submit}>
        <label htmlFor="fan-query">Handle, subject or id</label>
        <input
          id="fan-query"
          value={text}
          onChange={(event) => setText(event.target.value)}
          maxLength={256}
          autoComplete="off"
        />
        <button type="submit">Search</button>
      </form>
      {found.isError && <p role="alert">{describeError(found.error)}</p>}
      {found.data && (
        <table>
          <caption>{found.data.data.fans.length} found</caption>
          <thead>
            <tr>
              <th scope="col">Handle</th>
              <th scope="col">Subject</th>
              <th scope="col">Matched by</th>
              <th scope="col">Banned</th>
            </tr>
          </thead>
          <tbody>
            {found.data.data.fans.map((fan) => (
              <tr key={fan.id}>
                <td>
                  <a href={`#/fans/${fan.id}`}>{fan.handle ?? fan.id}</a>
                </td>
                <td>{fan.subject}</td>
                <td>{fan.matchedBy.join(', ')}</td>
                <td>{fan.bannedAt ? 'banned' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
