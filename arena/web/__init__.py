"""``arena serve``: the table in the browser.

``room`` runs one game per table through the referee's async driver and hands each connection the
events its visibility allows (a seat: ``visible_events``; a spectator: the public or, on tables
without human players, the god view). ``app`` is the Starlette application: the lobby, the pages
and the WebSocket every page talks through. The pages reuse the replay page's assets
(``arena/viewer_assets``) and add the seat's controls (``arena/web/assets``).
"""
