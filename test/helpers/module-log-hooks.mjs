// Module hooks (node:module register) for test/helpers/module-log.ts: each
// package module resolved under node_modules/@opentelemetry/ is posted to the
// main thread.
let port;

export function initialize(data) {
  port = data.port;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (result.url.includes('/node_modules/@opentelemetry/')) port.postMessage(result.url);
  return result;
}
