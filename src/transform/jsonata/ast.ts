// The parts of jsonata's abstract syntax tree (`expr.ast()`) the compiler reads.
export interface Node {
  type: string;
  value?: unknown;
  position?: number;
  steps?: Node[];
  stages?: { type: string; expr: Node; value?: unknown }[];
  predicate?: { type: string; expr: Node }[];
  group?: { lhs: [Node, Node][] };
  lhs?: Node & [Node, Node][];
  rhs?: Node;
  expression?: Node;
  expressions?: Node[];
  condition?: Node; then?: Node; else?: Node;
  procedure?: Node;
  arguments?: Node[];
  body?: Node;
  signature?: unknown;
  thunk?: boolean;
  keepArray?: boolean; keepSingletonArray?: boolean; consarray?: boolean;
  tuple?: boolean; focus?: string; index?: string; ancestor?: unknown; seekingParent?: unknown;
}

/** Thrown at compile time for a construct the compiler leaves to jsonata. */
export class Unsupported extends Error {}
