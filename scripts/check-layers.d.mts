// Types of check-layers.mjs for the spec test that runs it.
export interface ImportEdge { from: string; to: string }
export const ROOT: string[][];
export const CORE: string[][];
export const FEATURES: Record<string, string[]>;
export const LAYERS: string[][];
export function layerFolder(file: string): string;
export function checkGraph(edges: ReadonlyArray<ImportEdge>): string[];
export function readImportGraph(srcDir: string): ImportEdge[];
