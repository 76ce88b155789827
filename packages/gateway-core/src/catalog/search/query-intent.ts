import type { HttpMethod } from '../../tools/definition.js';
import { words } from './terms.js';

/**
 * What a question asks the tool to do, read from its leading verb: a model
 * phrases a need as an order ("Delete the branch", "List the teams") or a
 * question ("Who follows this user?"). The kinds are those every REST API
 * marks with its method (GET reads, POST creates, PATCH changes, DELETE
 * deletes; PUT creates or changes), so the ranking can prefer, among tools whose
 * words match equally (`get-…-limit` and `set-…-limit`), the one whose
 * method does what was asked.
 */
export type QueryIntent = 'read' | 'create' | 'change' | 'delete';

/** Questions read: a model asking "who", "which" or "is it" wants to know, not to change. */
const QUESTION_WORDS = [
  'who',
  'whom',
  'whose',
  'what',
  'which',
  'how',
  'when',
  'where',
  'why',
  'is',
  'are',
  'was',
  'were',
  'does',
  'do',
  'did',
  'has',
  'have',
];

const READ_VERBS = [
  'list',
  'get',
  'show',
  'fetch',
  'retrieve',
  'find',
  'search',
  'look',
  'lookup',
  'view',
  'see',
  'display',
  'count',
  'check',
  'read',
  'download',
  'enumerate',
  'give',
  'tell',
  'browse',
  'inspect',
  'query',
  'describe',
  'compare',
];

const DELETE_VERBS = [
  'delete',
  'remove',
  'erase',
  'drop',
  'destroy',
  'purge',
  'revoke',
  'uninstall',
  'unfollow',
  'unstar',
  'unblock',
  'unwatch',
  'unpin',
  'unsubscribe',
];

/** Verbs that make something new: REST APIs POST it (or PUT it at a known place), never PATCH. */
const CREATE_VERBS = [
  'create',
  'add',
  'open',
  'new',
  'make',
  'post',
  'send',
  'submit',
  'register',
  'place',
  'upload',
  'fork',
  'generate',
  'comment',
  'reply',
  'react',
  'invite',
  'request',
  'trigger',
  'dispatch',
  'run',
  'rerun',
  're',
  'start',
  'publish',
  'deploy',
  'release',
  'import',
  'schedule',
  'record',
  'book',
  'pay',
  'order',
  'attach',
  'link',
  'save',
  'store',
  'write',
  'apply',
  'grant',
  'star',
  'follow',
  'watch',
  'block',
  'pin',
  'mute',
  'subscribe',
  'join',
  'install',
  'put',
];

/** Verbs that change what exists: any method that writes. */
const CHANGE_VERBS = [
  'update',
  'edit',
  'change',
  'modify',
  'rename',
  'set',
  'replace',
  'move',
  'close',
  'reopen',
  'lock',
  'unlock',
  'merge',
  'cancel',
  'approve',
  'dismiss',
  'reject',
  'decline',
  'accept',
  'assign',
  'transfer',
  'archive',
  'unarchive',
  'enable',
  'disable',
  'mark',
  'rotate',
  'hide',
  'leave',
  'configure',
  'suspend',
  'unsuspend',
  'convert',
  'protect',
  'resolve',
  'restore',
  'reset',
  'redeliver',
  'retry',
  'toggle',
  'restock',
  'refund',
  'renew',
  'stop',
  'sync',
];

/** Words a request may open with before its verb ("Please could you list…"). */
const LEAD_WORDS = new Set([
  'please',
  'kindly',
  'i',
  'we',
  'you',
  'can',
  'could',
  'would',
  'should',
  'need',
  'want',
  'to',
  'like',
  'let',
  'lets',
  'us',
  'me',
  'help',
  'go',
  'ahead',
  'just',
  'now',
  'then',
  'also',
  'hey',
  'and',
]);

const INTENT_OF: ReadonlyMap<string, QueryIntent> = new Map<string, QueryIntent>([
  ...QUESTION_WORDS.map((word) => [word, 'read'] as const),
  ...READ_VERBS.map((word) => [word, 'read'] as const),
  ...CREATE_VERBS.map((word) => [word, 'create'] as const),
  ...CHANGE_VERBS.map((word) => [word, 'change'] as const),
  ...DELETE_VERBS.map((word) => [word, 'delete'] as const),
]);

/** The intent of a query's leading verb, or null when it does not open with one the table knows. */
export function queryIntent(query: string): QueryIntent | null {
  for (const word of words(query)) {
    if (LEAD_WORDS.has(word) || word.endsWith('ly')) continue;
    return INTENT_OF.get(word) ?? null;
  }
  return null;
}

/** Whether a tool's HTTP method does what the intent asks. */
export function methodServes(intent: QueryIntent, method: HttpMethod): boolean {
  if (intent === 'read') return method === 'GET';
  if (intent === 'delete') return method === 'DELETE';
  if (intent === 'create') return method === 'POST' || method === 'PUT';
  return method === 'POST' || method === 'PUT' || method === 'PATCH';
}
