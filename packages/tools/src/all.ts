import type { AnyTool } from '@hypruse/core';
import { desktopTool } from './desktop.js';
import { screenshotTool, zoomTool } from './screenshot.js';
import { clickUiTool, marksTool, uiTool } from './ui.js';
import { getTextTool } from './get-text.js';
import { pointerTool } from './pointer.js';
import { keyboardTool } from './keyboard.js';
import { wmTool } from './wm.js';
import { launchTool } from './launch.js';
import { bindsTool, useBindTool } from './binds.js';
import { sequenceTool } from './sequence.js';
import { waitForTool } from './wait-for.js';
import { clipboardTool } from './clipboard.js';
import { resumeTool } from './resume.js';
import { actTool } from './act.js';
import { menuTool } from './menu.js';
import { fileDialogTool } from './file-dialog.js';

/** The one list of built-in tools, in the order they are listed to agents. */
export const ALL_TOOLS: AnyTool[] = [
  desktopTool, screenshotTool, zoomTool, uiTool, marksTool, getTextTool, bindsTool, waitForTool,
  clickUiTool, actTool, menuTool, fileDialogTool, pointerTool, keyboardTool, wmTool, launchTool, useBindTool, sequenceTool, clipboardTool, resumeTool,
];
