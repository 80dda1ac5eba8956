import { operationSuites } from '../../helpers/operation-suites.js';

operationSuites('recordEvents', 'reverseEvent');
