declare const __HYPRUSE_VERSION__: string | undefined;

/** Replaced at build time; read from package.json when running from sources. */
export const VERSION: string = typeof __HYPRUSE_VERSION__ === 'string' ? __HYPRUSE_VERSION__ : '0.1.0';
