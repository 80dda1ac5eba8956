import { operationSuites } from '../../helpers/operation-suites.js';
import { ROUTES } from '../../helpers/routes.js';

operationSuites(...ROUTES.filter((r) => r.serviceScope === 'admin').map((r) => r.name));
