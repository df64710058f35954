import type { LayerSurface, Window } from '@hypruse/core';

/** Window classes of authentication dialogs (lowercased, exact). */
export const AUTH_CLASSES: ReadonlySet<string> = new Set([
  'hyprpolkitagent',
  'polkit-gnome-authentication-agent-1',
  'org.kde.polkit-kde-authentication-agent-1',
  'polkit-mate-authentication-agent-1',
  'lxpolkit',
  'lxqt-policykit-agent',
  'xfce-polkit',
  'mate-polkit',
  'gcr-prompter',
  'org.gnome.keyring.prompt',
  'ssh-askpass',
  'ksshaskpass',
  'org.kde.ksshaskpass',
  'lxqt-openssh-askpass',
  'x11-ssh-askpass',
  'pinentry',
  'org.gnupg.pinentry-qt',
  'org.gnupg.pinentry-qt5',
]);

/** Class families recognised by shape: every polkit agent, every askpass, every pinentry flavour. */
const AUTH_CLASS_PATTERNS: RegExp[] = [/polkit/, /policykit/, /askpass/, /^pinentry/, /\.pinentry/];

/** Layer namespaces of prompts a shell draws itself (Omarchy 4, end-4 dots, quickshell/ags polkit agents). */
const AUTH_LAYER_PATTERNS: RegExp[] = [/polkit/, /policykit/, /askpass/, /pinentry/, /keyring/, /auth(entication)?[-_:.]?(agent|dialog|prompt)/];

/** `prompts`: the compositor's own prompt classes (its manifest's `promptClasses`: a permission prompt, app-not-responding). */
export function isAuthClass(cls: string, prompts: readonly string[] = []): boolean {
  const c = cls.trim().toLowerCase();
  if (!c) return false;
  return AUTH_CLASSES.has(c) || prompts.includes(c) || AUTH_CLASS_PATTERNS.some((r) => r.test(c));
}

export function isAuthWindow(w: Window, prompts: readonly string[] = []): boolean {
  return isAuthClass(w.class, prompts);
}

export function isAuthLayer(l: LayerSurface): boolean {
  const ns = l.namespace.trim().toLowerCase();
  return ns !== '' && AUTH_LAYER_PATTERNS.some((r) => r.test(ns));
}
