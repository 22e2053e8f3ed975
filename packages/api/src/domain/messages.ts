// CloudKitty's error messages, kept word for word: people search for them.
export const noSuchService = (id: string) => `No such service: None (UUID: ${id})`;
export const noSuchField = (id: string) => `No such field: ${id}`;
export const noSuchGroup = (id: string) => `No such group: None (UUID: ${id})`;
export const noSuchMapping = (id: string) => `No such mapping: ${id}`;
export const noSuchThreshold = (id: string) => `No such threshold: ${id}`;
export const noSuchScript = (id: string) => `No such script: None (UUID: ${id})`;
export const moduleNotFound = "Module not found.";
export const alreadyExists = (kind: string, name: string, id: string) =>
  `${kind} ${name} already exists (UUID: ${id})`;
