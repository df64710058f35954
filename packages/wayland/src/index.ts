// Public surface of @hypruse/wayland. Input (wire client, virtual pointer and
// keyboard) and capture (grim, image pipeline, clipboard) live in their own
// folders, each with its own index.
export * from './input/index.js';
export * from './capture/index.js';
export { waylandPlugin } from './plugin.js';
export * from './seat/index.js';
export * from './indicator/index.js';
export { ShmFile } from './shm-file.js';
