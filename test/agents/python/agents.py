"""Test agents built on a2a-sdk (PyPI, 1.x): the seed's code-reviewer and deployer, with the same
behaviour as the @a2a-js/sdk ones in demo/agents/, served on loopback over JSON-RPC (/a2a/jsonrpc)
and HTTP+JSON (/a2a/rest) by Starlette and uvicorn, the SDK's own `http-server` extra.

Every line on stdout is one JSON object: {"event": "listening", "port": N} once, then one
{"event": "request", ...} per A2A request and one {"event": "message", ...} per user message that
arrives, so the test launcher (test/agents/sdk-agents.ts) can assert on what really arrived.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import sys
import time

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a.helpers.proto_helpers import new_artifact, new_data_part, new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    TaskArtifactUpdateEvent,
    TaskState,
)

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


def first_turn(context: RequestContext, queue: EventQueue):
    """The SDK wants a Task as the first event of a new task."""
    return queue.enqueue_event(
        new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
    )


async def add_artifact(queue: EventQueue, context: RequestContext, name: str, description: str, data: dict) -> None:
    artifact = new_artifact([new_data_part(data, 'application/json')], name, description)
    await queue.enqueue_event(
        TaskArtifactUpdateEvent(task_id=context.task_id, context_id=context.context_id, artifact=artifact, last_chunk=True)
    )


class CodeReviewer(AgentExecutor):
    """Asks `questions` questions (INPUT_REQUIRED turns on the same task), then completes with review.json.
    Each turn is one execute() call that returns at INPUT_REQUIRED; answers are kept per task."""

    def __init__(self, questions: int) -> None:
        self.questions = questions
        self.answers: dict[str, list[str]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)

        def say(text: str):
            return updater.new_agent_message([new_text_part(text)])

        if context.current_task is None:
            await first_turn(context, event_queue)
            if not re.search(r'^[+-]|\s[+-]\S', context.get_user_input(), re.M):
                await updater.reject(say('There is no diff in this message to review.'))
                return
            answers: list[str] = []
        else:
            answers = [*self.answers.get(context.task_id, []), context.get_user_input()]
        if len(answers) < self.questions:
            self.answers[context.task_id] = answers
            await updater.requires_input(say(reviewer_question(len(answers))))
            return
        self.answers.pop(context.task_id, None)

        base_branch = (answers[0].strip() if answers else '') or 'main'
        if re.search(r'\s', base_branch):
            await updater.failed(say(f'Base branch "{base_branch}" does not exist.'))
            return
        await updater.start_work(say(f'Reviewing against {base_branch}'))
        comments = [{'severity': 'suggestion', 'body': 'Consider adding a unit test that covers this change.'}]
        if len(answers) > 1 and answers[1].strip():
            comments.append({'severity': 'info', 'body': f'Migration files checked: {answers[1].strip()}'})
        await add_artifact(
            event_queue, context, 'review.json', 'Code review result',
            {'baseBranch': base_branch, 'verdict': 'approve', 'comments': comments},
        )
        await updater.complete(say('Review complete'))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.answers.pop(context.task_id, None)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([new_text_part('Review canceled')]))


def parse_version(text: str) -> str:
    match = re.search(r'\b(?:build|version)\s+v?([0-9][0-9A-Za-z.+-]*)', text, re.I)
    return re.sub(r'[.+-]+$', '', match.group(1)) if match else 'unknown'


class Deployer(AgentExecutor):
    """Stops in AUTH_REQUIRED without returning from execute() (the SDK's out-of-band auth model),
    and goes on when POST /approve/<taskId> arrives outside A2A."""

    def __init__(self, base_url: str, rounds: int, same_text: bool = False) -> None:
        self.base_url = base_url
        self.rounds = rounds
        # Many agents ask every round in the same words: only the status time tells rounds apart.
        self.same_text = same_text
        self.waiting: dict[str, asyncio.Future[bool]] = {}

    def approve(self, task_id: str) -> bool:
        waiter = self.waiting.pop(task_id, None)
        if waiter is None or waiter.done():
            return False
        waiter.set_result(True)
        return True

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)

        def say(text: str, *extra):
            return updater.new_agent_message([new_text_part(text), *extra])

        if context.current_task is not None:
            await updater.failed(say('No deployment is running for this task'))
            return
        await first_turn(context, event_queue)
        await updater.start_work(say('Preparing deployment'))
        await asyncio.sleep(STEP_SECONDS)
        for round_ in range(1, self.rounds + 1):
            approval_url = f'{self.base_url}/approve/{context.task_id}'
            suffix = f' (approval {round_} of {self.rounds})' if self.rounds > 1 and not self.same_text else ''
            # Register the waiter before announcing it, so an approval can never arrive first.
            waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self.waiting[context.task_id] = waiter
            await updater.requires_auth(
                say(f'An operator must approve this deploy at {approval_url}{suffix}',
                    new_data_part({'approvalUrl': approval_url}, 'application/json'))
            )
            try:
                if not await waiter:
                    return
            finally:
                self.waiting.pop(context.task_id, None)
            await updater.start_work(say('Approved; deploying'))
            await asyncio.sleep(STEP_SECONDS)
        await add_artifact(
            event_queue, context, 'deploy-result.json', 'Deployment result',
            {'environment': 'staging', 'status': 'deployed', 'version': parse_version(context.get_user_input())},
        )
        await updater.complete(say('Deployment complete'))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        waiter = self.waiting.pop(context.task_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(False)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([new_text_part('Deployment canceled')]))


REST_ROUTES = [
    ('POST', re.compile(r'^/message:send$'), 'SendMessage'),
    ('POST', re.compile(r'^/message:stream$'), 'SendStreamingMessage'),
    ('GET', re.compile(r'^/tasks$'), 'ListTasks'),
    ('GET', re.compile(r'^/tasks/([^/:]+)$'), 'GetTask'),
    (None, re.compile(r'^/tasks/([^/:]+):subscribe$'), 'SubscribeToTask'),
    ('POST', re.compile(r'^/tasks/([^/:]+):cancel$'), 'CancelTask'),
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
        method, task_id, message = '', '', parsed.get('message')
        if path.startswith(JSONRPC_PATH):
            params = parsed.get('params') if isinstance(parsed.get('params'), dict) else {}
            method, task_id, message = str(parsed.get('method', '')), str(params.get('id', '')), params.get('message')
        else:
            route = path[len(REST_PATH):]
            for http_method, pattern, name in REST_ROUTES:
                m = pattern.match(route)
                if m and (http_method is None or http_method == scope['method']):
                    method, task_id = name, (m.group(1) if m.groups() else '')
                    break
        if isinstance(message, dict) and message.get('messageId'):
            task_id = task_id or message.get('taskId', '')
            texts = [p['text'] for p in message.get('parts', []) if isinstance(p, dict) and isinstance(p.get('text'), str)]
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
    parser.add_argument('--port', type=int, default=0)
    parser.add_argument('--questions', type=int, default=int(os.environ.get('QUESTIONS', '1')))
    parser.add_argument('--auth-loops', type=int, default=int(os.environ.get('AUTH_LOOPS', '1')))
    parser.add_argument('--streaming', choices=['true', 'false'], default=os.environ.get('STREAMING', 'true'))
    parser.add_argument('--preferred-binding', choices=['JSONRPC', 'HTTP+JSON'], default='JSONRPC')
    parser.add_argument('--same-approval-text', action='store_true', help='ask every approval round in the same words')
    args = parser.parse_args()

    # The card names the port, so bind first.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', args.port))
    port = sock.getsockname()[1]
    base_url = f'http://127.0.0.1:{port}'

    approve = None
    if args.agent == 'code-reviewer':
        executor: AgentExecutor = CodeReviewer(args.questions)
        description = 'Reviews a diff; asks which base branch to compare against before it starts.'
        skill = AgentSkill(id='code-review', name='Code review', description='Reviews a diff and returns review.json',
                           tags=['code-review'], examples=['Please review this diff: +const a = 1;'])
    else:
        deployer = Deployer(base_url, args.auth_loops, args.same_approval_text)
        executor, approve = deployer, deployer.approve
        description = 'Deploys a build to staging after an operator approves it out of band.'
        skill = AgentSkill(id='deploy', name='Deploy', description='Deploys a build to staging; needs operator approval',
                           tags=['deploy'], examples=['Deploy build 2026.10.06-1 to staging'])

    interfaces = [
        AgentInterface(url=base_url + JSONRPC_PATH, protocol_binding='JSONRPC', protocol_version='1.0'),
        AgentInterface(url=base_url + REST_PATH, protocol_binding='HTTP+JSON', protocol_version='1.0'),
    ]
    if args.preferred_binding == 'HTTP+JSON':
        interfaces.reverse()
    card = AgentCard(
        name=args.agent,
        description=description,
        version='0.1.0',
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=args.streaming == 'true', push_notifications=False),
        default_input_modes=['text/plain'],
        default_output_modes=['application/json', 'text/plain'],
        skills=[skill],
    )
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)

    async def approve_route(request: Request) -> JSONResponse:
        task_id = request.path_params['task_id']
        if approve is None or not approve(task_id):
            return JSONResponse({'approved': False, 'error': f'No approval is pending for task {task_id}'}, status_code=404)
        emit({'event': 'approval', 'taskId': task_id})
        return JSONResponse({'approved': True})

    routes = [
        # First: the REST routes end with a Mount('/{tenant}') that would take /approve/<id> for a tenant.
        Route('/approve/{task_id}', approve_route, methods=['POST']),
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, JSONRPC_PATH),
        *create_rest_routes(handler, path_prefix=REST_PATH),
    ]
    app = RecordRequests(Starlette(routes=routes))
    # Listen before saying so: connections wait in the backlog until uvicorn accepts them.
    sock.listen(128)
    emit({'event': 'listening', 'port': port, 'sdk': 'a2a-python', 'agent': args.agent})
    server = uvicorn.Server(uvicorn.Config(app, log_level='warning', lifespan='off'))
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == '__main__':
    main()
