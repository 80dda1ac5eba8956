import { operationSuites } from '../../helpers/operation-suites.js';

operationSuites('exportAccount', 'deleteAccount');
