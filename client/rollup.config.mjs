// The client build's second step (npm run build -w client): bundles the
// declarations tsconfig.types.json emitted for types/app-router.ts (into
// build/) into one self-contained dist/app-router.d.ts. The service's own
// declarations it reaches (the error shape's Issue) are inlined; every other
// import must be a package the client declares, which `npm run consumer:check`
// enforces (decision 0062).
import { dts } from 'rollup-plugin-dts';

export default {
  input: 'build/server/client/types/app-router.d.ts',
  output: { file: 'dist/app-router.d.ts', format: 'es' },
  external: [/^@trpc\/server(\/|$)/],
  plugins: [dts()],
};
