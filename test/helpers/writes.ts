import { TRPCClientError } from '@trpc/client';
import type { Face } from './reads.js';
import { route } from './routes.js';
import type { TestApp } from './test-app.js';

/**
 * The write operations through either face with one result shape, like
 * `reader` for the reads: REST is real HTTP to the documented path (checked
 * against openapi.json by app.request), tRPC the typed client.
 */
export type WriteProcedure = 'updateUser' | 'onboardProfile' | 'deleteAccount';

export type WriteResult =
  | { ok: true; status: number; data: any }
  | {
      ok: false;
      status: number;
      code: string;
      message: string;
      issues: Array<{ path: string; message: string }> | undefined;
      retryAt: string | undefined;
    };

export function writer(app: TestApp, face: Face) {
  return async function write(
    procedure: WriteProcedure,
    token: string,
    input?: Record<string, unknown>,
  ): Promise<WriteResult> {
    if (face === 'rest') {
      const { method, path } = route(procedure);
      const response = await app.request(method, path, { token, body: input });
      if (response.status < 300) {
        if (response.body?.success !== true) throw new Error(`not a success: ${response.text}`);
        return { ok: true, status: response.status, data: response.body.data };
      }
      if (response.body?.success !== false) throw new Error(`not an error: ${response.text}`);
      const { code, message, issues, retryAt } = response.body.error;
      return { ok: false, status: response.status, code, message, issues, retryAt };
    }
    const client = app.trpc(token) as unknown as Record<
      WriteProcedure,
      { mutate(input?: unknown): Promise<{ success: true; data: unknown }> }
    >;
    try {
      const result = await client[procedure].mutate(input);
      return { ok: true, status: 200, data: result.data };
    } catch (error) {
      if (!(error instanceof TRPCClientError)) throw error;
      const data = error.data as {
        httpStatus: number;
        errorCode: string;
        issues?: Array<{ path: string; message: string }>;
        retryAt?: string;
      };
      return {
        ok: false,
        status: data.httpStatus,
        code: data.errorCode,
        message: error.message,
        issues: data.issues,
        retryAt: data.retryAt,
      };
    }
  };
}
