/** Which of the desk's panels (My Day, Schedules) is open: kept apart from the app state. */
class DeskPanels {
  open = $state<'' | 'myday' | 'schedule'>('')
}

export const desk = new DeskPanels()
