"""The project's URLs and ``POST /bench/bare/``: DRF parsing a JSON body and answering, nothing else."""
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from stich.urls import urlpatterns as project


class Bare(APIView):
    permission_classes = [AllowAny]

    def post(self, request):
        return Response({"received": len(request.data)}, status=201)


urlpatterns = [path("bench/bare/", Bare.as_view()), *project]
