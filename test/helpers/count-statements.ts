import type { KyselyPlugin } from 'kysely';

/**
 * Counts every statement sent through a Kysely instance it is added to
 * (`db.withPlugin(counter)`). BEGIN and COMMIT pass no plugin: a test that
 * counts transactions adds them itself.
 */
export class CountStatements implements KyselyPlugin {
  count = 0;
  transformQuery: KyselyPlugin['transformQuery'] = (args) => args.node;
  transformResult: KyselyPlugin['transformResult'] = async (args) => {
    this.count += 1;
    return args.result;
  };
}
