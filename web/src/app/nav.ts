import {
  IconBell,
  IconBinaryTree,
  IconBulb,
  IconChartDots,
  IconChecklist,
  IconDatabase,
  IconFlask,
  IconHistory,
  IconLayoutDashboard,
  IconListDetails,
  IconMessages,
  IconPencil,
  IconPlayerPlay,
  IconPrompt,
  IconRun,
  IconSettings,
  IconShare,
  IconShieldLock,
  IconStars,
  IconUsers,
  IconWebhook,
} from '@tabler/icons-react';

/** The navigation, grouped the way people work: watch, build, judge, get told, configure. */
export const NAV = [
  {
    label: 'Observe',
    items: [
      { to: '/', label: 'Overview', icon: IconLayoutDashboard },
      { to: '/requests', label: 'Requests', icon: IconListDetails },
      { to: '/traces', label: 'Traces', icon: IconBinaryTree },
      { to: '/sessions', label: 'Sessions', icon: IconMessages },
      { to: '/users', label: 'Users', icon: IconUsers },
    ],
  },
  {
    label: 'Build',
    items: [
      { to: '/prompts', label: 'Prompts', icon: IconPrompt },
      { to: '/playground', label: 'Playground', icon: IconPlayerPlay },
      { to: '/datasets', label: 'Datasets', icon: IconDatabase },
      { to: '/experiments', label: 'Experiments', icon: IconFlask },
    ],
  },
  {
    label: 'Evaluate',
    items: [
      { to: '/evaluators', label: 'Evaluators', icon: IconChecklist },
      { to: '/eval-runs', label: 'Eval runs', icon: IconRun },
      { to: '/annotation', label: 'Annotation', icon: IconPencil },
      { to: '/scores', label: 'Scores', icon: IconStars },
    ],
  },
  {
    label: 'Monitor',
    items: [
      { to: '/alerts', label: 'Alerts', icon: IconBell },
      { to: '/anomalies', label: 'Anomalies', icon: IconChartDots },
      { to: '/recommendations', label: 'Recommendations', icon: IconBulb },
      { to: '/security', label: 'Security', icon: IconShieldLock },
    ],
  },
  {
    label: 'Configure',
    items: [
      { to: '/webhooks', label: 'Webhooks', icon: IconWebhook },
      { to: '/shares', label: 'Shares', icon: IconShare },
      { to: '/audit', label: 'Audit log', icon: IconHistory },
      { to: '/settings', label: 'Settings', icon: IconSettings },
    ],
  },
] as const;

/** Whether a nav entry is the current page or one of its detail pages. */
export const isActive = (to: string, path: string) =>
  to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`);
