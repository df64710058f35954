export { IdleNotify, EXT_IDLE_NOTIFIER, KDE_IDLE, type IdleNotifyHandlers, type IdleNotifyOptions } from './idle-notify.js';
