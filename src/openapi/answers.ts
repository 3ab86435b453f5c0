// A route's success answer: the schema the repository has for it (chat completions and their stream events, the
// video object, model lists), a shape read off the route's own `answer` where its inputs are known (token counts),
// else a generic JSON value described by where it comes from.
import type { CompiledRoute, CompiledTaskRoute } from '../config/runtime.js';
import type { SchemaComponents } from './convert-schema.js';
import { inferSchema } from './infer-schema.js';
import { accountAnswers, consoleAdminAnswers } from './account-answers.js';
import type { Answer, Content } from './answer.js';

export type { Answer };

type Schema = Record<string, unknown>;

const json = (schema: Schema): Content => ({ 'application/json': { schema } });
const generic = (description: string): Schema => ({ description, type: ['object', 'array'] });
const object = (description: string): Schema => ({ description, type: 'object' });
const bytes: Content = { '*/*': { schema: { description: 'The bytes as they were sent, with their content type.' } } };
const ok = (content: Content, description = 'Success.'): Answer[] => [{ status: '200', description, content }];

export async function answersOf(route: CompiledRoute, components: SchemaComponents): Promise<Answer[]> {
  if (route.task) return taskAnswers(route.task, components);
  switch (route.policy) {
    case 'stream': return ok(route.dialect ? dialectAnswer(route) : chatAnswer(components));
    case 'json': return ok(json(generic('The answer, mapped by the channel to the unified format where it differs.')));
    case 'passthrough': return ok(bytes, 'The vendor\'s answer, relayed as it came.');
    case 'models': return ok(json(components.ref(route.path.includes('{id}') ? 'model.response.json' : 'model-list.response.json')));
    case 'stored': return ok(json(object(route.method === 'DELETE' ? 'The id, its object type and `deleted: true`.' : 'The kept answer, as the client first got it.')));
    case 'count_tokens': return ok(json(await countAnswer(route)));
    case 'metrics': return ok({ 'text/plain': { schema: { type: 'string', description: 'Prometheus text exposition.' } } });
    case 'account': return accountAnswers(route, recordList(components), object('The usage report, as GET /admin/usage answers it, of the user\'s tokens.'));
    case 'admin':
      if (consoleAdminAnswers(route)) return consoleAdminAnswers(route)!;
      if (route.action === 'requests' || route.action === 'request') return ok(json(recordList(components)));
      if (route.action === 'requests_export') return ok({ 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string', description: 'One request record a line.' } } });
      if (route.action === 'user_usage' || route.action === 'team_usage') return ok(usageReport(route.action), usageWords[route.action]);
      return [{ status: creates.has(route.action ?? '') ? '201' : '200', description: 'Success.', content: json(object(`The ${route.action} answer.`)) }];
    case 'billing': return ok(json(route.action === 'requests' || route.action === 'request' ? recordList(components) : object(`The ${route.action} answer.`)));
    case 'files': return fileAnswers(route, components);
    case 'openapi': return ok(json(object('This document.')));
    case 'console': return route.path.includes('{asset}')
      ? [...ok({ 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } }, 'One of the console\'s files (its script, its styles, the chart library).'),
        { status: '304', description: 'Not modified (If-None-Match named the current ETag).', content: {} }]
      : ok({ 'text/html': { schema: { type: 'string', description: 'The console page; it calls the admin API with the key the operator signs in with.' } } });
    case 'relay': return ok(relayAnswer(route), 'The answer as the vendor streams it.');
    case 'realtime': return [{ status: '101', description: 'Switching Protocols: the WebSocket session, its events both ways as the vendor defines them; a refusal before it is an HTTP error below.', content: {} }];
    case 'client_secret': return ok(json({
      type: 'object', required: ['value', 'expires_at'],
      properties: { value: { type: 'string', description: 'The secret, for a browser\'s realtime subprotocol or Bearer header.' }, expires_at: { type: 'integer', description: 'Unix seconds.' }, session: { type: 'object' } },
    }));
    case 'ready': return [
      ...ok(json(object('Ready: the config hash and the store kind.'))),
      { status: '503', description: 'Not ready.', content: json(object('Not ready: the config hash and the reason.')) },
    ];
    default: return ok(json(object(`The ${route.policy} answer.`)));
  }
}

const creates = new Set(['token_create', 'user_create', 'team_create']);

const usageWords: Record<string, string> = {
  user_usage: 'The user\'s usage over the range: requests of all their tokens, from the usage rollups.',
  team_usage: 'The team\'s usage over the range: the requests of the users who are its members now (a user who left takes their spending along, one who joined brings theirs).',
};

/** A user's or team's report: JSON rows and a total, or (`format=csv`) the rows as CSV with a header row. */
const usageReport = (action: string): Content => ({
  ...json(object(`The ${action} report: {object: usage, group_by, from, to, units_per_usd, data: rows of counts, charged and charged_usd, total}.`)),
  'text/csv': { schema: { type: 'string', description: 'With `format=csv`: a header row, then a row per key (no total row).' } },
});

/** An audio route's formats (bytes of each, or its events), else the vendor's JSON, text or events. */
function relayAnswer(route: CompiledRoute): Content {
  const audio = route.audio;
  if (!audio) return { ...json(generic('The vendor\'s JSON answer.')), 'text/plain': { schema: { type: 'string' } }, 'text/event-stream': { schema: { type: 'string', description: 'Events, as the vendor sends them.' } } };
  const content: Content = {};
  for (const [format, type] of Object.entries(audio.contentTypes)) content[type] = { schema: { type: 'string', format: 'binary', description: `\`${format}\` audio, streamed as it is made.` } };
  if (audio.eventsAt) content['text/event-stream'] = { schema: { type: 'string', description: `With \`${audio.eventsAt.path.join('.')}: ${String(audio.eventsAt.value)}\`: the audio in base64 chunk events, then a closing event with the usage.` } };
  return content;
}

/** Request log records, a page of them (`next_cursor` for the next) or one request's. */
const recordList = (components: SchemaComponents): Schema => ({
  type: 'object',
  properties: { object: { const: 'list' }, data: { type: 'array', items: components.ref('request-record.response.json') }, has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'] } },
});

/** OpenAI's file object, a page of them, the bytes, or the deletion. */
function fileAnswers(route: CompiledRoute, components: SchemaComponents): Answer[] {
  switch (route.action) {
    case 'list': return ok(json(components.ref('file-list.response.json')));
    case 'content': return [...ok(bytes, 'The file, streamed from the vendor that holds it.'), { status: '206', description: 'The part of the file a Range asked for.', content: bytes }];
    case 'delete': return ok(json({ type: 'object', properties: { id: { type: 'string' }, object: { const: 'file' }, deleted: { const: true } } }));
    default: return ok(json(components.ref('file.response.json')), route.action === 'upload' ? 'The file was checked and stored (nothing is charged).' : 'Success.');
  }
}

function taskAnswers(task: CompiledTaskRoute, components: SchemaComponents): Answer[] {
  // A route's own `answer` is the family's format; without one, the video object.
  const one = (as: string) => json(task.answer ? generic(`The task in the family's own shape (the route's \`answer\`), ${as}.`) : components.ref('video.response.json'));
  switch (task.action) {
    case 'submit': return ok(one('as submitted'), 'The task was accepted (nothing is charged unless it is).');
    case 'query': case 'delete': return ok(one('as it stands'));
    case 'page': return ok(task.answer
      ? json(object('A page of the caller\'s tasks ({object: list, data, first_id, last_id, has_more}), each as the route\'s `answer` shows it.'))
      : json(components.ref('video-list.response.json')));
    case 'list': return ok(json(generic(task.listAnswer ? 'The tasks, wrapped by the route\'s `list_answer`.' : 'The caller\'s tasks among the ids asked for, in that order.')));
    case 'content': return [...ok(bytes, 'The result file.'), { status: '206', description: 'The part of the result a Range asked for.', content: bytes }];
    default: return ok(json(generic('The vendor\'s answer about the task, mapped by the channel.')));
  }
}

function chatAnswer(components: SchemaComponents): Content {
  return {
    'application/json': { schema: components.ref('chat-completion.json') },
    // One schema per event: what OpenAPI 3.2 calls `itemSchema`, an extension in 3.1.
    'text/event-stream': {
      schema: { type: 'string', description: 'With `"stream": true`: one `data: <chunk>` line per event, each a chat.completion.chunk (or a final error event), then `data: [DONE]`.' },
      'x-itemSchema': components.ref('chat-chunk.json'),
    },
  };
}

/** A dialect's answers are its own format (the dialect's client transforms make them). */
function dialectAnswer(route: CompiledRoute): Content {
  const what = route.dialect!.description ?? route.dialect!.name;
  return {
    'application/json': { schema: object(`The answer in the route's dialect: ${what}`) },
    'text/event-stream': { schema: { type: 'string', description: `With \`"stream": true\`: the dialect's named events (${what}).` } },
  };
}

/** A count_tokens route's `answer` run over two estimates: what varies is typed, what is fixed is kept. */
async function countAnswer(route: CompiledRoute): Promise<Schema> {
  if (!route.answer) return object('The estimate.');
  const samples = await Promise.all([{ tokens: 1, model: 'a' }, { tokens: 7, model: 'b' }].map((b) => route.answer!.run({}, b)));
  return { description: 'The prompt-token estimate billing would reserve (the route\'s `answer`).', ...inferSchema(samples.map((s) => JSON.parse(JSON.stringify(s ?? null)))) };
}
