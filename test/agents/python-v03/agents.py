"""Test agents built on a2a-sdk 0.3.26 (PyPI; A2A v0.3): the seed's code-reviewer and deployer, with
the same behaviour as the v1.0 ones (test/agents/python/agents.py, demo/agents/), served on
loopback the way that SDK's docs show: a v0.3 card (top-level url, preferred_transport,
additional_interfaces, protocol_version 0.3.0), A2AStarletteApplication's JSON-RPC routes at
/a2a/jsonrpc and A2ARESTFastAPIApplication's HTTP+JSON routes (/v1/...) under /a2a/rest.

Every line on stdout is one JSON object: {"event": "listening", "port": N} once, then one
{"event": "request", ...} per A2A request (by its v0.3 method name on both bindings) and one
{"event": "message", ...} per user message, as they arrive (test/agents/sdk-agents-v03.ts).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import sys
import time
import uuid

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import BasePushNotificationSender, InMemoryPushNotificationConfigStore, InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    DataPart,
    Part,
    TextPart,
)
from a2a.utils import new_task

JSONRPC_PATH = '/a2a/jsonrpc'
REST_PATH = '/a2a/rest'

BASE_BRANCH_QUESTION = 'Which base branch should I compare this diff against?'
MIGRATIONS_QUESTION = 'Should I also check the migration files? (yes/no)'
# Short pauses so a stream shows WORKING and the next state as separate steps.
STEP_SECONDS = 0.02


def emit(event: dict) -> None:
    event['at'] = int(time.time() * 1000)
    sys.stdout.write(json.dumps(event) + '\n')
    sys.stdout.flush()


def reviewer_question(index: int) -> str:
    if index == 0:
        return BASE_BRANCH_QUESTION
    if index == 1:
        return MIGRATIONS_QUESTION
    return f'Anything else I should know before reviewing? (question {index + 1})'


def text(value: str) -> Part:
    return Part(root=TextPart(text=value))


def data(value: dict) -> Part:
    return Part(root=DataPart(data=value))


async def first_turn(context: RequestContext, queue: EventQueue) -> None:
    """The SDK wants a Task as the first event of a new task."""
    await queue.enqueue_event(new_task(context.message))


async def add_artifact(updater: TaskUpdater, name: str, value: dict) -> None:
    await updater.add_artifact([data(value)], artifact_id=str(uuid.uuid4()), name=name, last_chunk=True)


class CodeReviewer(AgentExecutor):
    """Asks `questions` questions (input-required turns on the same task), then completes with review.json.
    Each turn is one execute() call that returns at input-required; answers are kept per task."""

    def __init__(self, questions: int) -> None:
        self.questions = questions
        self.answers: dict[str, list[str]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)

        def say(value: str):
            return updater.new_agent_message([text(value)])

        if context.current_task is None:
            await first_turn(context, event_queue)
            answers: list[str] = []
        else:
            answers = [*self.answers.get(context.task_id, []), context.get_user_input()]
        if len(answers) < self.questions:
            self.answers[context.task_id] = answers
            await updater.requires_input(say(reviewer_question(len(answers))), final=True)
            return
        self.answers.pop(context.task_id, None)
        base_branch = (answers[0].strip() if answers else '') or 'main'
        await updater.start_work(say(f'Reviewing against {base_branch}'))
        comments = [{'severity': 'suggestion', 'body': 'Consider adding a unit test that covers this change.'}]
        if len(answers) > 1 and answers[1].strip():
            comments.append({'severity': 'info', 'body': f'Migration files checked: {answers[1].strip()}'})
        await add_artifact(updater, 'review.json', {'baseBranch': base_branch, 'verdict': 'approve', 'comments': comments})
        await updater.complete(say('Review complete'))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.answers.pop(context.task_id, None)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([text('Review canceled')]))

def parse_version(text: str) -> str:
    match = re.search(r'\b(?:build|version)\s+v?([0-9][0-9A-Za-z.+-]*)', text, re.I)
    return re.sub(r'[.+-]+$', '', match.group(1)) if match else 'unknown'


class Deployer(AgentExecutor):
    """Stops in auth-required (not final) without returning from execute() (the SDK's out-of-band auth model),
    and goes on when POST /approve/<taskId> arrives outside A2A."""

    def __init__(self, base_url: str, rounds: int) -> None:
        self.base_url = base_url
        self.rounds = rounds
        self.waiting: dict[str, asyncio.Future[bool]] = {}

    def approve(self, task_id: str) -> bool:
        waiter = self.waiting.pop(task_id, None)
        if waiter is None or waiter.done():
            return False
        waiter.set_result(True)
        return True

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)

        def say(value: str, *extra):
            return updater.new_agent_message([text(value), *extra])

        if context.current_task is not None:
            await updater.failed(say('No deployment is running for this task'))
            return
        await first_turn(context, event_queue)
        await updater.start_work(say('Preparing deployment'))
        await asyncio.sleep(STEP_SECONDS)
        for round_ in range(1, self.rounds + 1):
            approval_url = f'{self.base_url}/approve/{context.task_id}'
            suffix = f' (approval {round_} of {self.rounds})' if self.rounds > 1 else ''
            # Register the waiter before announcing it, so an approval can never arrive first.
            waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self.waiting[context.task_id] = waiter
            await updater.requires_auth(
                say(f'An operator must approve this deploy at {approval_url}{suffix}', data({'approvalUrl': approval_url}))
            )
            try:
                if not await waiter:
                    return
            finally:
                self.waiting.pop(context.task_id, None)
            await updater.start_work(say('Approved; deploying'))
            await asyncio.sleep(STEP_SECONDS)
        await add_artifact(
            updater, 'deploy-result.json',
            {'environment': 'staging', 'status': 'deployed', 'version': parse_version(context.get_user_input())},
        )
        await updater.complete(say('Deployment complete'))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        waiter = self.waiting.pop(context.task_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(False)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([text('Deployment canceled')]))


REST_ROUTES = [
    ('POST', re.compile(r'^/v1/message:send$'), 'message/send'),
    ('POST', re.compile(r'^/v1/message:stream$'), 'message/stream'),
    ('GET', re.compile(r'^/v1/tasks/([^/:]+)$'), 'tasks/get'),
    (None, re.compile(r'^/v1/tasks/([^/:]+):subscribe$'), 'tasks/resubscribe'),
    ('POST', re.compile(r'^/v1/tasks/([^/:]+):cancel$'), 'tasks/cancel'),
    ('POST', re.compile(r'^/v1/tasks/([^/:]+)/pushNotificationConfigs'), 'tasks/pushNotificationConfig/set'),
    ('GET', re.compile(r'^/v1/tasks/([^/:]+)/pushNotificationConfigs$'), 'tasks/pushNotificationConfig/list'),
    ('GET', re.compile(r'^/v1/tasks/([^/:]+)/pushNotificationConfigs/'), 'tasks/pushNotificationConfig/get'),
]


class RecordRequests:
    """ASGI middleware: logs each A2A request and each user message before the SDK sees them."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get('path', '')
        if scope['type'] != 'http' or not path.startswith(('/a2a/',)):
            return await self.app(scope, receive, send)
        chunks = []
        while True:
            msg = await receive()
            chunks.append(msg.get('body', b''))
            if not msg.get('more_body'):
                break
        body = b''.join(chunks)
        try:
            parsed = json.loads(body) if body else {}
        except ValueError:
            parsed = {}
        parsed = parsed if isinstance(parsed, dict) else {}
        method, task_id, message, parts_key = '', '', None, 'parts'
        if path.startswith(JSONRPC_PATH):
            params = parsed.get('params') if isinstance(parsed.get('params'), dict) else {}
            method, message = str(parsed.get('method', '')), params.get('message')
            task_id = str(params.get('id', '') or params.get('taskId', ''))
        else:
            # The REST binding's proto JSON: the message is `request`, its parts `content`.
            message, parts_key = parsed.get('request'), 'content'
            route = path[len(REST_PATH):]
            for http_method, pattern, name in REST_ROUTES:
                m = pattern.match(route)
                if m and (http_method is None or http_method == scope['method']):
                    method, task_id = name, (m.group(1) if m.groups() else '')
                    break
        if isinstance(message, dict) and message.get('messageId'):
            task_id = task_id or message.get('taskId', '')
            texts = [p['text'] for p in message.get(parts_key, []) if isinstance(p, dict) and isinstance(p.get('text'), str)]
            emit({'event': 'message', 'messageId': message['messageId'], 'taskId': message.get('taskId', ''),
                  'contextId': message.get('contextId', ''), 'role': message.get('role', ''), 'text': '\n'.join(texts)})
        emit({'event': 'request', 'method': method, 'taskId': task_id, 'httpMethod': scope['method'], 'path': path})

        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {'type': 'http.request', 'body': body, 'more_body': False}
            return await receive()

        return await self.app(scope, replay, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--agent', choices=['code-reviewer', 'deployer'], default='code-reviewer')
    parser.add_argument('--questions', type=int, default=1)
    parser.add_argument('--auth-loops', type=int, default=1)
    parser.add_argument('--streaming', choices=['true', 'false'], default='true')
    parser.add_argument('--preferred-binding', choices=['JSONRPC', 'HTTP+JSON'], default='JSONRPC')
    parser.add_argument('--push', choices=['true', 'false'], default='false')
    args = parser.parse_args()

    # The card names the port, so bind first.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    base_url = f'http://127.0.0.1:{port}'

    approve = None
    if args.agent == 'code-reviewer':
        executor: AgentExecutor = CodeReviewer(args.questions)
        description = 'Reviews a diff; asks which base branch to compare against before it starts.'
    else:
        deployer = Deployer(base_url, args.auth_loops)
        executor, approve = deployer, deployer.approve
        description = 'Deploys a build to staging after an operator approves it out of band.'

    interfaces = [
        AgentInterface(url=base_url + JSONRPC_PATH, transport='JSONRPC'),
        AgentInterface(url=base_url + REST_PATH, transport='HTTP+JSON'),
    ]
    if args.preferred_binding == 'HTTP+JSON':
        interfaces.reverse()
    card = AgentCard(
        protocol_version='0.3.0',
        name=args.agent,
        description=description,
        url=interfaces[0].url,
        preferred_transport=interfaces[0].transport,
        additional_interfaces=interfaces,
        version='0.1.0',
        capabilities=AgentCapabilities(streaming=args.streaming == 'true', push_notifications=args.push == 'true'),
        default_input_modes=['text/plain'],
        default_output_modes=['application/json', 'text/plain'],
        skills=[AgentSkill(id=args.agent, name=args.agent, description=description, tags=[args.agent])],
    )
    push_store = InMemoryPushNotificationConfigStore()
    handler = DefaultRequestHandler(
        agent_executor=executor,
        task_store=InMemoryTaskStore(),
        push_config_store=push_store,
        push_sender=BasePushNotificationSender(httpx.AsyncClient(), push_store),
    )

    async def approve_route(request: Request) -> JSONResponse:
        task_id = request.path_params['task_id']
        if approve is None or not approve(task_id):
            return JSONResponse({'approved': False, 'error': f'No approval is pending for task {task_id}'}, status_code=404)
        emit({'event': 'approval', 'taskId': task_id})
        return JSONResponse({'approved': True})

    routes = [
        Route('/approve/{task_id}', approve_route, methods=['POST']),
        *A2AStarletteApplication(agent_card=card, http_handler=handler).routes(rpc_url=JSONRPC_PATH),
        Mount(REST_PATH, app=A2ARESTFastAPIApplication(agent_card=card, http_handler=handler).build()),
    ]
    app = RecordRequests(Starlette(routes=routes))
    # Listen before saying so: connections wait in the backlog until uvicorn accepts them.
    sock.listen(128)
    emit({'event': 'listening', 'port': port, 'sdk': 'a2a-python-0.3', 'agent': args.agent})
    server = uvicorn.Server(uvicorn.Config(app, log_level='warning', lifespan='off'))
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == '__main__':
    main()
