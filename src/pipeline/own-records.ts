// The caller's own task or file, or 404: the existence of other users' tasks and files, or of other families', is
// never revealed.
import { GatewayError, clip } from '../http/errors.js';
import type { Caller, Exchange } from './exchange.js';
import type { TaskRecord } from '../records/task-record.js';
import type { FileRecord } from '../records/file-record.js';
import type { Gateway } from './gateway.js';

export async function ownTask(ex: Exchange, c: Caller, id: string | undefined): Promise<TaskRecord> {
  const rec = id ? await ex.g.tasks.get(id) : undefined;
  const families = c.route.task?.families;
  // A task still being submitted has no answer yet: nobody has been given its id.
  if (!rec || rec.submitting || rec.owner.user !== c.token.user || (families && !families.includes(rec.family))) {
    throw new GatewayError('task_not_found', `Task ${clip(id ?? '')} not found`);
  }
  ex.ctx.model = rec.model;
  return rec;
}

export async function ownFile(g: Gateway, c: Caller, id: string | undefined): Promise<FileRecord> {
  const rec = id ? await g.files.get(id) : undefined;
  if (!rec || rec.owner.user !== c.token.user) throw new GatewayError('file_not_found', `File ${clip(id ?? '')} not found`);
  return rec;
}
