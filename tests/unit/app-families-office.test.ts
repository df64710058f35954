// The office knowledge of the app-family table: the keep-the-format question a Save in a foreign
// format brings up (LibreOffice 7.4's "Confirm File Format"), recognised from the window and its
// buttons; anything else is not such a question.
import { describe, expect, it } from 'vitest';
import { AppFamilyTable, familyOfWindowClass } from '../../packages/a11y/src/app-families.js';

describe('app families: keep-format question', () => {
  const t = new AppFamilyTable();
  const buttons = ['Ask when not saving in ODF or default format', 'Use ODF Format', 'Use Word 2007–365 Format'];

  it('LibreOffice: the button that keeps the chosen format', () => {
    expect(t.keepFormatButton({ class: 'soffice', title: 'Confirm File Format' }, buttons)).toBe('Use Word 2007–365 Format');
    expect(t.keepFormatButton({ class: 'soffice', title: 'Confirm File Format' }, ['Use ODF Format!', 'Use Excel 2007-365!  Format!'])).toBe('Use Excel 2007-365!  Format!');
  });

  it('never the app’s own format, nor another window or app', () => {
    expect(t.keepFormatButton({ class: 'soffice', title: 'Confirm File Format' }, ['Use ODF Format'])).toBeNull();
    expect(t.keepFormatButton({ class: 'soffice', title: 'Save Document?' }, buttons)).toBeNull();
    expect(t.keepFormatButton({ class: 'mousepad', title: 'Confirm File Format' }, buttons)).toBeNull();
  });
});

describe('app families: how long a read waits for the app', () => {
  it('LibreOffice windows (each document class and the splash) are waited for longer; others keep the usual ceiling', () => {
    for (const c of ['libreoffice-calc', 'libreoffice-writer', 'soffice', 'LibreOffice-Calc']) expect(familyOfWindowClass(c)?.answerMs, c).toBeGreaterThan(2000);
    for (const c of ['mousepad', 'zenity', '', 'libreoffice']) expect(familyOfWindowClass(c)?.answerMs, c).toBeUndefined();
  });
});
