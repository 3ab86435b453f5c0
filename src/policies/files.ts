// Policy `files`: the caller's files, OpenAI's Files API (src/files/). `upload` checks and stores a batch input file
// at the vendor that will run it; the others read, stream and delete the caller's own.
import type { LocalPolicy } from '../pipeline/policy.js';
import { uploadFile } from '../files/upload.js';
import { deleteFile, fileContent, getFile, listFiles } from '../files/file-actions.js';

export const fileActions: Record<string, LocalPolicy> = { upload: uploadFile, get: getFile, list: listFiles, content: fileContent, delete: deleteFile };
