import { operationSuites } from '../../helpers/operation-suites.js';

operationSuites('me', 'pointsHistory', 'quests');
