// Vendors defined once: `vendors/<name>.yaml` holds a vendor's channel template (real base URL, auth, operations and
// their transforms) and its models with list prices. A channel names one with `extends`; the production config
// extends it as it is and the demo points only its base URL and key at the simulator. The config directory's own
// `vendors/` wins over the install's, so an operator can add or replace a vendor without touching the install.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectRoot } from './config-files.js';
import { loadYaml, type YamlFile } from './load-yaml.js';
import type { Diagnostic } from './diagnostics.js';
import type { ChannelsFile, ChannelTemplate, Model } from '../types/generated/channels.js';
import type { VendorFile } from '../types/generated/vendor.js';

export interface VendorRecord {
  name: string;
  file: YamlFile;
  data: VendorFile;
}

/** Template names a channel lists in `extends`, in order. */
export function extendsOf(ch: { extends?: string | string[] }): string[] {
  return ch.extends === undefined ? [] : Array.isArray(ch.extends) ? ch.extends : [ch.extends];
}

/** Where named config files of a kind are looked for: the config directory's `<kind>/`, then the install's. */
export function namedFileDirs(configDir: string, kind: 'vendors' | 'dialects'): string[] {
  const own = join(resolve(configDir), kind);
  const shipped = join(projectRoot, kind);
  return own === shipped ? [shipped] : [own, shipped];
}

export const vendorDirs = (configDir: string) => namedFileDirs(configDir, 'vendors');

/** `<kind>/<name>.yaml` for each name that has one (the first directory holding it wins), loaded, not yet checked. */
export function readNamedFiles(names: Iterable<string>, configDir: string, kind: 'vendors' | 'dialects', diags: Diagnostic[]): Map<string, YamlFile> {
  const found = new Map<string, YamlFile>();
  for (const name of new Set(names)) {
    // Names are checked by the schemas; anything else never becomes a path.
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) continue;
    const path = namedFileDirs(configDir, kind).map((d) => join(d, `${name}.yaml`)).find((p) => existsSync(p));
    if (!path) continue; // reported by the cross-reference layer as unknown
    const file = loadYaml(path, diags);
    if (!file) continue;
    file.name = `${kind}/${name}.yaml`;
    found.set(name, file);
  }
  return found;
}

/** The vendor files the channels extend (names not defined under `templates`), loaded but not yet checked. */
export function readVendorFiles(channels: ChannelsFile, configDir: string, diags: Diagnostic[]): Map<string, VendorRecord> {
  const wanted = channels.channels.flatMap(extendsOf).filter((n) => !channels.templates?.[n]);
  const files = readNamedFiles(wanted, configDir, 'vendors', diags);
  return new Map([...files].map(([name, file]) => [name, { name, file, data: file.data as VendorFile }]));
}

/**
 * Adds each vendor's template (serving every model it prices) to `templates` and its models to `models`; the config's
 * own entries of the same name win. Returns the names of the models that came from vendor files.
 */
export function mergeVendors(channels: ChannelsFile, vendors: Map<string, VendorRecord>, report: (v: VendorRecord, pointer: string, message: string) => void): Set<string> {
  const fromVendors = new Map<string, string>();
  const templates: Record<string, ChannelTemplate> = {};
  const models: Record<string, Model> = {};
  for (const v of vendors.values()) {
    templates[v.name] = { models: Object.keys(v.data.models) as [string, ...string[]], ...v.data.channel };
    for (const [m, spec] of Object.entries(v.data.models)) {
      const other = fromVendors.get(m);
      if (other && !channels.models[m]) report(v, `/models/${m}`, `model "${m}" is also priced by vendors/${other}.yaml: define it in channels.yaml \`models\` to choose`);
      if (!other) fromVendors.set(m, v.name);
      models[m] ??= spec;
    }
  }
  channels.templates = { ...templates, ...channels.templates };
  channels.models = { ...models, ...channels.models };
  return new Set([...fromVendors.keys()].filter((m) => channels.models[m] === models[m]));
}
